// Two processes sending at once (two rails, each with its own database pool and node client) take
// distinct, consecutive nonces from the shared row, and every transfer lands once, several per
// block under interval mining.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { recipient, startChainWorld, type ChainWorld } from '../support/chain.ts';

let world: ChainWorld;

before(async () => {
  world = await startChainWorld();
});
after(() => world.stop());

const TRANSFERS = 12;

test('concurrent sends from two rails get distinct consecutive nonces and all confirm, several per block', async () => {
  const [one, two] = await Promise.all([world.rail(), world.rail()]);
  const startNonce = await world.client.getTransactionCount({ address: world.treasury });
  await world.node.request('evm_setAutomine', [false]);
  await world.node.request('evm_setIntervalMining', [500]);
  try {
    const sends = Array.from({ length: TRANSFERS }, (_, i) =>
      (i % 2 === 0 ? one : two).send({ reference: `concurrent-${i}`, amount: `${i + 1}.5`, toAddress: recipient(100 + i) }));
    const results = await Promise.all(sends);
    assert.ok(results.every((r) => r.state === 'PENDING'));

    const { rows } = await world.db.query(`SELECT nonce::int AS nonce FROM chain_transfers WHERE reference LIKE 'concurrent-%' ORDER BY nonce`);
    assert.deepEqual(rows.map((r) => r.nonce), Array.from({ length: TRANSFERS }, (_, i) => startNonce + i));

    const deadline = Date.now() + 30_000;
    for (let i = 0; i < TRANSFERS; ) {
      const state = await (i % 2 === 0 ? two : one).status(`concurrent-${i}`);
      if (state.state === 'CONFIRMED') i++;
      else {
        assert.equal(state.state, 'PENDING');
        assert.ok(Date.now() < deadline, `concurrent-${i} not confirmed in time`);
        await sleep(100);
      }
    }
    for (let i = 0; i < TRANSFERS; i++) {
      assert.equal(await world.balanceOf(recipient(100 + i)), BigInt(i + 1) * 1_000_000n + 500_000n);
    }
    assert.equal(await world.client.getTransactionCount({ address: world.treasury }), startNonce + TRANSFERS);
    const blocks = await world.db.query(`SELECT count(DISTINCT block_number)::int AS n FROM chain_transfers WHERE reference LIKE 'concurrent-%'`);
    assert.ok(blocks.rows[0].n < TRANSFERS, `${blocks.rows[0].n} blocks for ${TRANSFERS} transfers`);
  } finally {
    await world.node.request('evm_setIntervalMining', [0]);
    await world.node.request('evm_setAutomine', [true]);
  }
});

test('the same reference sent at once by both rails, many times, is one transfer and one transaction', async () => {
  const [one, two] = await Promise.all([world.rail(), world.rail()]);
  const startNonce = await world.client.getTransactionCount({ address: world.treasury });
  const results = await Promise.all(Array.from({ length: 6 }, (_, i) =>
    (i % 2 === 0 ? one : two).send({ reference: 'same-reference', amount: '3', toAddress: recipient(150) })));
  const hashes = new Set(results.map((r) => (r.state === 'PENDING' ? r.txHash : r.state)));
  assert.equal(hashes.size, 1);
  assert.equal(await world.client.getTransactionCount({ address: world.treasury }), startNonce + 1);
  assert.equal(await world.balanceOf(recipient(150)), 3_000_000n);
  const { rows } = await world.db.query(`SELECT next_nonce::int AS n FROM chain_nonces`);
  assert.deepEqual(rows, [{ n: startNonce + 1 }]);
});
