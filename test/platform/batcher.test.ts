// Group commit: items wait while batches run, share a batch, and a failing batch is retried item by item.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBatcher } from '../../src/platform/batcher.ts';
import { DatabaseBusyError } from '../../src/platform/database/transaction.ts';

test('items submitted in one turn of the event loop share a batch; those submitted while it runs are taken together next, up to the batch size', async () => {
  const batches: number[][] = [];
  const batcher = createBatcher<number, number>({
    batchSizeMax: 3,
    concurrencyMax: 1,
    async run(items) {
      batches.push(items);
      await new Promise((r) => setTimeout(r, 20));
      return items.map((i) => i * 10);
    },
  });
  const burst = [1, 2].map((i) => batcher.submit(i));
  await new Promise((r) => setTimeout(r, 5)); // the burst's batch is running
  const later = [3, 4, 5, 6, 7].map((i) => batcher.submit(i));
  assert.deepEqual(await Promise.all([...burst, ...later]), [10, 20, 30, 40, 50, 60, 70]);
  assert.deepEqual(batches, [[1, 2], [3, 4, 5], [6, 7]]);
});

test('an item alone starts its batch within the same turn of the event loop, not after a timer', async () => {
  const batches: number[][] = [];
  const batcher = createBatcher<number, number>({ batchSizeMax: 10, concurrencyMax: 1, run: async (items) => (batches.push(items), items) });
  const result = batcher.submit(1);
  assert.deepEqual(batches, []); // not started while the submitting code still runs
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(batches, [[1]]);
  assert.equal(await result, 1);
});

test('a failing batch is retried one item at a time: only the bad item fails', async () => {
  const batcher = createBatcher<number, number>({
    batchSizeMax: 10,
    concurrencyMax: 1,
    async run(items) {
      await new Promise((r) => setTimeout(r, 5));
      if (items.includes(3)) throw new Error('three is bad');
      return items;
    },
  });
  const settled = await Promise.allSettled([1, 2, 3, 4].map((i) => batcher.submit(i)));
  assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
});

test('a batch that lost its races (DatabaseBusyError) fails whole: no item is run again alone', async () => {
  const batches: number[][] = [];
  const busy = new DatabaseBusyError(5, Object.assign(new Error('deadlock detected'), { code: '40P01' }));
  const batcher = createBatcher<number, number>({
    batchSizeMax: 10,
    concurrencyMax: 1,
    async run(items) {
      batches.push(items);
      await new Promise((r) => setTimeout(r, 5));
      if (items.length > 1) throw busy;
      return items;
    },
  });
  const first = batcher.submit(1);
  await new Promise((r) => setImmediate(r)); // [1] runs alone
  const results = await Promise.allSettled([first, ...[2, 3, 4].map((i) => batcher.submit(i))]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'rejected', 'rejected']);
  for (const r of results.slice(1)) assert.equal((r as PromiseRejectedResult).reason, busy);
  assert.deepEqual(batches, [[1], [2, 3, 4]]);
});
