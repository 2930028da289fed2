// Group commit: items wait while batches run, share a batch, and a failing batch is retried item by item.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBatcher } from '../../src/platform/batcher.ts';
import { DatabaseBusyError } from '../../src/platform/database/transaction.ts';

test('items submitted while a batch runs are taken together, up to the batch size', async () => {
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
  const results = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((i) => batcher.submit(i)));
  assert.deepEqual(results, [10, 20, 30, 40, 50, 60, 70]);
  assert.deepEqual(batches, [[1], [2, 3, 4], [5, 6, 7]]);
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
  const results = await Promise.allSettled([1, 2, 3, 4].map((i) => batcher.submit(i)));
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'rejected', 'rejected']);
  for (const r of results.slice(1)) assert.equal((r as PromiseRejectedResult).reason, busy);
  assert.deepEqual(batches, [[1], [2, 3, 4]]);
});
