// The treasury's on-chain balance against a ledger figure: exact to the token's last decimal,
// with the rail's unfinished transfers beside it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { reconcileTreasury, ReconcileInputError } from '../../src/chain/reconcile.ts';
import { DEV_KEYS, LOCAL_CHAIN_ID } from '../support/hardhat.ts';
import { ROOT } from '../support/service.ts';
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

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(path.join(ROOT, 'node_modules/.bin/node'), ['src/admin/cli.ts', ...args], {
      cwd: ROOT,
      env: {
        ...process.env, DATABASE_URL: world.database.url, CHAIN_RPC_URL: world.node.url, CHAIN_ID: String(LOCAL_CHAIN_ID),
        CHAIN_TOKEN_ADDRESS: world.token.address, CHAIN_TREASURY_KEY: DEV_KEYS.treasury, ...env,
      },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return error as { code: number; stdout: string; stderr: string };
  }
}

test('npm run admin -- chain reconcile: exit 0 when the figures agree, 1 with the difference, 1 on a bad figure or chain', async () => {
  const { onChain } = await reconcile('0');
  const agree = await cli(['chain', 'reconcile', '--ledger', onChain, '--json']);
  assert.equal(agree.code, 0, agree.stderr);
  assert.equal(JSON.parse(agree.stdout).matches, true);

  const differ = await cli(['chain', 'reconcile', '--ledger', '5']);
  assert.equal(differ.code, 1);
  assert.match(differ.stdout, /Difference on chain - ledger: 999994\.999999 TUSD/);

  const bad = await cli(['chain', 'reconcile', '--ledger', '1.0000001']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /at most 6 decimals/);
  const wrongChain = await cli(['chain', 'reconcile', '--ledger', '1'], { CHAIN_ID: '1' });
  assert.equal(wrongChain.code, 1);
  assert.match(wrongChain.stderr, /CHAIN_ID is 1/);
  const missing = await cli(['chain', 'reconcile']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /needs --ledger/);
});
