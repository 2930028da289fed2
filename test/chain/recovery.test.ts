// What the chain rail does when the chain does not simply mine what it was given: a dropped
// transaction is rebroadcast, then replaced with the same nonce and higher fees; a revert, or a
// nonce taken by a transaction the rail did not record, is IN_DOUBT; a never-signed transfer
// whose nonce was used is NOT_SENT; an unsigned transfer never blocks the later ones.
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { VenueRefusal } from '../../src/settlements/venues.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { TreasurySigner } from '../../src/chain/signer.ts';
import { DEV_KEYS } from '../support/hardhat.ts';
import { failingSigner, mine, recipient, startChainWorld, useTreasuryNonce, type ChainWorld } from '../support/chain.ts';

let world: ChainWorld;

before(async () => {
  world = await startChainWorld();
});
afterEach(async () => {
  await world.node.request('evm_setAutomine', [true]);
});
after(() => world.stop());

const attemptsOf = async (reference: string) =>
  (await world.db.query(`SELECT attempt, tx_hash, max_fee_per_gas, max_priority_fee_per_gas FROM chain_transfer_attempts WHERE reference = $1 ORDER BY attempt`, [reference])).rows;
const pendingTransaction = (hash: string) => world.node.request<unknown>('eth_getTransactionByHash', [hash]);

test('a dropped transaction is broadcast again, same bytes, before it is due for replacement', async () => {
  const rail = await world.rail({ replaceAfterMs: 60_000 });
  await world.node.request('evm_setAutomine', [false]);
  const sent = await rail.send({ reference: 'drop-1', amount: '10', toAddress: recipient(10) });
  assert.ok(sent.state === 'PENDING' && sent.txHash !== null);
  await world.node.request('hardhat_dropTransaction', [sent.txHash]);
  assert.equal(await pendingTransaction(sent.txHash), null);

  assert.deepEqual(await rail.status('drop-1'), { state: 'PENDING', txHash: sent.txHash, confirmations: 0 });
  assert.notEqual(await pendingTransaction(sent.txHash), null);
  assert.equal((await attemptsOf('drop-1')).length, 1);
  await mine(world, 3);
  assert.equal((await rail.status('drop-1')).state, 'CONFIRMED');
});

test('a transaction unmined past replaceAfterMs is replaced with the same nonce and fees raised 12.5%, recorded first, confirmed once', async () => {
  const rail = await world.rail({ replaceAfterMs: 300 });
  const to = recipient(11);
  const nonceBefore = await world.client.getTransactionCount({ address: world.treasury });
  await world.node.request('evm_setAutomine', [false]);
  const sent = await rail.send({ reference: 'drop-2', amount: '7.25', toAddress: to });
  assert.ok(sent.state === 'PENDING' && sent.txHash !== null);
  await world.node.request('hardhat_dropTransaction', [sent.txHash]);
  await sleep(400);

  const replaced = await rail.status('drop-2');
  assert.ok(replaced.state === 'PENDING' && replaced.txHash !== null);
  assert.notEqual(replaced.txHash, sent.txHash);
  const [first, second] = await attemptsOf('drop-2');
  assert.equal(second.tx_hash, replaced.txHash);
  assert.ok(BigInt(second.max_fee_per_gas) * 1000n >= BigInt(first.max_fee_per_gas) * 1125n);
  assert.ok(BigInt(second.max_priority_fee_per_gas) * 1000n >= BigInt(first.max_priority_fee_per_gas) * 1125n);
  const replacement = await world.client.getTransaction({ hash: replaced.txHash as Hex });
  assert.equal(replacement.nonce, nonceBefore);

  await world.node.request('evm_setAutomine', [true]);
  await mine(world, 3);
  const confirmed = await rail.status('drop-2');
  assert.ok(confirmed.state === 'CONFIRMED');
  assert.equal(confirmed.txHash, replaced.txHash);
  assert.equal(await world.balanceOf(to), 7_250_000n);
  assert.equal(await world.client.getTransactionCount({ address: world.treasury }), nonceBefore + 1);
});

test('past attemptsMax a stuck transfer is not replaced again: its last transaction is broadcast again as it is', async () => {
  const rail = await world.rail({ replaceAfterMs: 200, attemptsMax: 2 });
  await world.node.request('evm_setAutomine', [false]);
  const sent = await rail.send({ reference: 'drop-3', amount: '1', toAddress: recipient(19) });
  assert.ok(sent.state === 'PENDING' && sent.txHash !== null);
  await world.node.request('hardhat_dropTransaction', [sent.txHash]);
  await sleep(300);
  const second = await rail.status('drop-3');
  assert.ok(second.state === 'PENDING' && second.txHash !== sent.txHash);
  await world.node.request('hardhat_dropTransaction', [second.txHash]);
  await sleep(300);
  assert.deepEqual(await rail.status('drop-3'), { state: 'PENDING', txHash: second.txHash, confirmations: 0 });
  assert.equal((await attemptsOf('drop-3')).length, 2);
  assert.notEqual(await pendingTransaction(second.txHash!), null);
  await mine(world, 3);
  assert.equal((await rail.status('drop-3')).state, 'CONFIRMED');
});

test('a transfer that reverts (token paused after it was signed) is IN_DOUBT, never retried', async () => {
  const rail = await world.rail();
  const to = recipient(12);
  const treasuryBefore = await world.balanceOf(world.treasury);
  await world.node.request('evm_setAutomine', [false]);
  const sent = await rail.send({ reference: 'revert-1', amount: '3', toAddress: to });
  assert.ok(sent.state === 'PENDING' && sent.txHash !== null);
  await world.ownerCall('pause'); // a higher tip: mined first in the same block
  await mine(world, 1);
  try {
    const doubt = await rail.status('revert-1');
    assert.equal(doubt.state, 'IN_DOUBT');
    assert.ok(doubt.state === 'IN_DOUBT');
    assert.equal(doubt.txHash, sent.txHash);
    assert.match(doubt.reason, /reverted/);
    await mine(world, 3);
    assert.equal((await rail.send({ reference: 'revert-1', amount: '3', toAddress: to })).state, 'IN_DOUBT');
    assert.equal((await attemptsOf('revert-1')).length, 1);
    assert.equal(await world.balanceOf(to), 0n);
    assert.equal(await world.balanceOf(world.treasury), treasuryBefore);
  } finally {
    await world.node.request('evm_setAutomine', [true]);
    await world.ownerCall('unpause');
  }
});

test('a broadcast transfer whose nonce is taken by a transaction the rail did not record is IN_DOUBT', async () => {
  const rail = await world.rail();
  await world.node.request('evm_setAutomine', [false]);
  const nonce = await world.client.getTransactionCount({ address: world.treasury });
  const sent = await rail.send({ reference: 'taken-1', amount: '1', toAddress: recipient(13) });
  assert.ok(sent.state === 'PENDING' && sent.txHash !== null);
  await world.node.request('hardhat_dropTransaction', [sent.txHash]);
  await useTreasuryNonce(world, nonce);
  await mine(world, 1);
  const doubt = await rail.status('taken-1');
  assert.equal(doubt.state, 'IN_DOUBT');
  assert.ok(doubt.state === 'IN_DOUBT');
  assert.match(doubt.reason, /by none of the 1 recorded transactions/);
  assert.equal(await world.balanceOf(recipient(13)), 0n);
});

test('a transfer recorded but never signed is NOT_SENT once its nonce is used elsewhere', async () => {
  const broken = await world.rail({ signer: failingSigner(world) });
  const nonce = await world.client.getTransactionCount({ address: world.treasury });
  await assert.rejects(broken.send({ reference: 'unsigned-1', amount: '2', toAddress: recipient(14) }), /signer unavailable/);
  const row = await world.db.query(`SELECT state, nonce FROM chain_transfers WHERE reference = 'unsigned-1'`);
  assert.deepEqual(row.rows[0], { state: 'PREPARED', nonce: String(nonce) });
  assert.deepEqual(await broken.status('unsigned-1').catch(() => 'threw'), 'threw'); // still cannot sign, still PREPARED

  await useTreasuryNonce(world, nonce); // automine: mined at once
  const rail = await world.rail();
  const notSent = await rail.status('unsigned-1');
  assert.equal(notSent.state, 'NOT_SENT');
  assert.equal(await world.balanceOf(recipient(14)), 0n);
  // the nonce row advanced past the used slot: later transfers are not blocked
  // (the rail's next nonce is already past it), and the stale transfer is never signed again
  assert.equal((await attemptsOf('unsigned-1'))[0].tx_hash, null);
});

test('a transfer left unsigned (signer down) does not block the next one: the next send finishes it first', async () => {
  const broken = await world.rail({ signer: failingSigner(world) });
  await assert.rejects(broken.send({ reference: 'gap-1', amount: '1.5', toAddress: recipient(15) }), /signer unavailable/);
  const rail = await world.rail({ gapGraceMs: 0 });
  const later = await rail.send({ reference: 'gap-2', amount: '2.5', toAddress: recipient(16) });
  assert.equal(later.state, 'PENDING');
  await mine(world, 3);
  assert.equal((await rail.status('gap-1')).state, 'CONFIRMED');
  assert.equal((await rail.status('gap-2')).state, 'CONFIRMED');
  assert.equal(await world.balanceOf(recipient(15)), 1_500_000n);
  assert.equal(await world.balanceOf(recipient(16)), 2_500_000n);
});

test('bytes from the signer that are not the transaction asked for, or not signed by the treasury, are refused and never recorded', async () => {
  const other = privateKeyToAccount(DEV_KEYS.deployer);
  const tampering: TreasurySigner = { address: world.signer.address, signTransaction: (tx) => world.signer.signTransaction({ ...tx, nonce: tx.nonce + 1 }) };
  const impostor: TreasurySigner = { address: world.signer.address, signTransaction: (tx) => other.signTransaction(tx) };
  await assert.rejects((await world.rail({ signer: tampering })).send({ reference: 'tampered-1', amount: '1', toAddress: recipient(17) }), /other than the one it was asked/);
  await assert.rejects((await world.rail({ signer: impostor })).send({ reference: 'tampered-2', amount: '1', toAddress: recipient(17) }), /not as the treasury/);
  const { rows } = await world.db.query(`SELECT t.state, a.tx_hash FROM chain_transfers t JOIN chain_transfer_attempts a USING (reference) WHERE reference LIKE 'tampered-%'`);
  assert.deepEqual(rows, [{ state: 'PREPARED', tx_hash: null }, { state: 'PREPARED', tx_hash: null }]);
  // a working signer then sends both, once each
  const rail = await world.rail();
  await rail.status('tampered-2');
  assert.equal((await rail.status('tampered-1')).state, 'PENDING');
  assert.equal(await world.balanceOf(recipient(17)), 2_000_000n);
});

test('nonces used by the treasury key outside the rail are skipped, not reused: the next transfer takes the next nonce the node gives', async () => {
  const rail = await world.rail();
  await rail.send({ reference: 'skip-0', amount: '1', toAddress: recipient(18) }); // the nonce row exists
  const used = await world.client.getTransactionCount({ address: world.treasury });
  await useTreasuryNonce(world, used);
  await useTreasuryNonce(world, used + 1);
  const sent = await rail.send({ reference: 'skip-1', amount: '1', toAddress: recipient(18) });
  assert.equal(sent.state, 'PENDING');
  const { rows } = await world.db.query(`SELECT nonce::int AS nonce FROM chain_transfers WHERE reference = 'skip-1'`);
  assert.equal(rows[0].nonce, used + 2);
  await mine(world, 2);
  assert.equal((await rail.status('skip-1')).state, 'CONFIRMED');
  assert.equal(await world.balanceOf(recipient(18)), 2_000_000n);
});

test('a transfer the token refuses before anything is signed (paused, or more than the treasury holds) is a VenueRefusal, with nothing recorded', async () => {
  const rail = await world.rail();
  const to = recipient(13);
  const nonceBefore = await world.client.getTransactionCount({ address: world.treasury });
  await world.ownerCall('pause');
  try {
    await assert.rejects(rail.send({ reference: 'refused-1', amount: '2', toAddress: to }), (error: Error) => {
      assert.ok(error instanceof VenueRefusal, String(error));
      assert.match(error.message, /the token refuses the transfer/);
      return true;
    });
  } finally {
    await world.ownerCall('unpause');
  }
  await assert.rejects(rail.send({ reference: 'refused-2', amount: '999999999999', toAddress: to }), VenueRefusal);
  assert.deepEqual(await rail.status('refused-1'), { state: 'UNKNOWN' });
  assert.deepEqual(await rail.status('refused-2'), { state: 'UNKNOWN' });
  assert.equal(await world.client.getTransactionCount({ address: world.treasury }), nonceBefore);
  assert.equal(await world.balanceOf(to), 0n);
});

test('an earlier unsent transfer younger than the grace is left to its own caller: a concurrent send does not sign it too', async () => {
  await world.node.request('evm_setAutomine', [false]); // a node that queues a nonce ahead of a gap, as public nodes do
  try {
    const broken = await world.rail({ signer: failingSigner(world) });
    await assert.rejects(broken.send({ reference: 'young-1', amount: '1', toAddress: recipient(17) }), /signer unavailable/);
    const rail = await world.rail({ gapGraceMs: 60_000 });
    assert.equal((await rail.send({ reference: 'young-2', amount: '1', toAddress: recipient(18) })).state, 'PENDING');
    const { rows } = await world.db.query(`SELECT state FROM chain_transfers WHERE reference = 'young-1'`);
    assert.equal(rows[0].state, 'PREPARED');
    // past the grace (here: none) the next call finishes it, so the account's later nonces are not held
    const healing = await world.rail({ gapGraceMs: 0 });
    await healing.status('young-2');
    const { rows: after } = await world.db.query(`SELECT state FROM chain_transfers WHERE reference = 'young-1'`);
    assert.notEqual(after[0].state, 'PREPARED');
    await mine(world, 3);
    assert.equal((await healing.status('young-1')).state, 'CONFIRMED');
    assert.equal((await healing.status('young-2')).state, 'CONFIRMED');
  } finally {
    await world.node.request('evm_setAutomine', [true]);
  }
});
