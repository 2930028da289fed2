// The treasury's on-chain balance against a ledger figure: exact to the token's last decimal,
// with the rail's unfinished transfers beside it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { reconcileTreasury, ReconcileInputError } from '../../src/chain/reconcile.ts';
import { LOCAL_CHAIN_ID } from '../support/hardhat.ts';
import { recipient, startChainWorld, type ChainWorld } from '../support/chain.ts';

let world: ChainWorld;

before(async () => {
  world = await startChainWorld();
});
after(() => world.stop());

const reconcile = (ledgerAmount: string) =>
  reconcileTreasury({ db: world.db, client: world.client, chainId: LOCAL_CHAIN_ID, tokenAddress: world.token.address, treasury: world.treasury, ledgerAmount });

test('a ledger figure equal to the on-chain balance matches; one unit off is a difference of exactly that unit', async () => {
  const rail = await world.rail();
  await rail.send({ reference: 'reconcile-1', amount: '0.000001', toAddress: recipient(300) });
  const same = await reconcile('999999.999999');
  assert.equal(same.onChain, '999999.999999');
  assert.equal(same.difference, '0.000000');
  assert.equal(same.matches, true);
  assert.equal(same.asset, 'TUSD');
  // mined, 1 of 3 confirmations: still unfinished for the rail
  assert.equal(same.unfinishedTransfers, 1);
  assert.equal(same.unfinishedAmount, '0.000001');

  const off = await reconcile('1000000');
  assert.equal(off.matches, false);
  assert.equal(off.difference, '-0.000001');
});

test('a ledger figure the token cannot hold exactly is refused', async () => {
  await assert.rejects(reconcile('1.0000001'), ReconcileInputError);
  await assert.rejects(reconcile('-1'), ReconcileInputError);
  assert.equal((await reconcile('0')).ledger, '0.000000');
  assert.equal((await reconcile('0.0')).ledger, '0.000000');
});
