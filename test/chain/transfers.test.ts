// The chain rail against a real EVM node (Hardhat) and the real PostgreSQL: a transfer moves the
// exact amount and is CONFIRMED only under the required confirmations; a reference makes one
// transaction however often it is sent; amounts follow the token's decimals, read from the contract.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Hex } from 'viem';
import { ConfigError } from '../../src/platform/config.ts';
import { VenueRefusal, type ChainTransfers } from '../../src/settlements/venues.ts';
import { mine, recipient, startChainWorld, type ChainWorld } from '../support/chain.ts';

let world: ChainWorld;
let rail: ChainTransfers;

before(async () => {
  world = await startChainWorld();
  rail = await world.rail();
});
after(() => world.stop());

test('the asset is the symbol read from the token contract', () => {
  assert.equal(rail.asset, 'TUSD');
});

test('a transfer moves the exact amount in the token units of its 6 decimals and is CONFIRMED after 3 confirmations', async () => {
  const to = recipient(1);
  const before = await world.balanceOf(world.treasury);
  const sent = await rail.send({ reference: 'settlement-1:chain', amount: '1234.567891', toAddress: to });
  assert.ok(sent.state === 'PENDING' && sent.txHash !== null);
  // automine: mined at once, 1 confirmation of 3
  assert.deepEqual(await rail.status('settlement-1:chain'), { state: 'PENDING', txHash: sent.txHash, confirmations: 1 });
  assert.equal(await world.balanceOf(to), 1_234_567_891n);
  assert.equal(await world.balanceOf(world.treasury), before - 1_234_567_891n);

  await mine(world, 1);
  const two = await rail.status('settlement-1:chain');
  assert.deepEqual(two, { state: 'PENDING', txHash: sent.txHash, confirmations: 2 });
  await mine(world, 1);
  const confirmed = await rail.status('settlement-1:chain');
  assert.equal(confirmed.state, 'CONFIRMED');
  assert.ok(confirmed.state === 'CONFIRMED');
  assert.equal(confirmed.txHash, sent.txHash);
  assert.equal(confirmed.confirmations, 3);
  const receipt = await world.client.getTransactionReceipt({ hash: sent.txHash as Hex });
  assert.equal(confirmed.blockNumber, receipt.blockNumber.toString());
  const row = await world.db.query(`SELECT state, amount_units, tx_hash FROM chain_transfers WHERE reference = 'settlement-1:chain'`);
  assert.deepEqual(row.rows[0], { state: 'CONFIRMED', amount_units: '1234567891', tx_hash: sent.txHash });
});

test('sending the same reference again returns its state and makes no second transaction', async () => {
  const to = recipient(2);
  const nonceBefore = await world.client.getTransactionCount({ address: world.treasury });
  const first = await rail.send({ reference: 'settlement-2:chain', amount: '5', toAddress: to });
  const again = await rail.send({ reference: 'settlement-2:chain', amount: '5', toAddress: to });
  const other = await (await world.rail()).send({ reference: 'settlement-2:chain', amount: '5.000000', toAddress: `0x${to.slice(2).toUpperCase()}` });
  assert.ok(first.state === 'PENDING' && again.state === 'PENDING' && other.state === 'PENDING');
  assert.equal(again.txHash, first.txHash);
  assert.equal(other.txHash, first.txHash);
  assert.equal(await world.client.getTransactionCount({ address: world.treasury }), nonceBefore + 1);
  assert.equal(await world.balanceOf(to), 5_000_000n);
  const attempts = await world.db.query(`SELECT count(*)::int AS n FROM chain_transfer_attempts WHERE reference = 'settlement-2:chain'`);
  assert.equal(attempts.rows[0].n, 1);
});

test('the same reference with another amount or recipient is refused, nothing sent', async () => {
  await assert.rejects(rail.send({ reference: 'settlement-2:chain', amount: '6', toAddress: recipient(2) }), VenueRefusal);
  await assert.rejects(rail.send({ reference: 'settlement-2:chain', amount: '5', toAddress: recipient(3) }), VenueRefusal);
  assert.equal(await world.balanceOf(recipient(3)), 0n);
});

test('an amount with more decimals than the token has is refused, not rounded, and nothing is recorded', async () => {
  const nonceBefore = await world.client.getTransactionCount({ address: world.treasury });
  await assert.rejects(rail.send({ reference: 'settlement-3:chain', amount: '1.0000001', toAddress: recipient(4) }), (error: Error) => {
    assert.ok(error instanceof VenueRefusal);
    assert.match(error.message, /more than the token's 6 decimals/);
    return true;
  });
  for (const amount of ['0', '-1', '1e3', ' 1', '']) {
    await assert.rejects(rail.send({ reference: 'settlement-3:chain', amount, toAddress: recipient(4) }), VenueRefusal, amount);
  }
  await assert.rejects(rail.send({ reference: 'settlement-3:chain', amount: '1', toAddress: '0x1234' }), VenueRefusal);
  assert.deepEqual(await rail.status('settlement-3:chain'), { state: 'UNKNOWN' });
  assert.equal(await world.client.getTransactionCount({ address: world.treasury }), nonceBefore);
});

test('a rail configured for another chain id refuses to start', async () => {
  await assert.rejects(world.rail({ chainId: 1 }), (error: Error) => {
    assert.ok(error instanceof ConfigError);
    assert.match(error.message, /CHAIN_ID is 1 but the node at CHAIN_RPC_URL is on chain 31337/);
    return true;
  });
});

test('status of a reference never sent is UNKNOWN', async () => {
  assert.deepEqual(await rail.status('never-sent'), { state: 'UNKNOWN' });
});
