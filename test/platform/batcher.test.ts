// Group commit: items wait while batches run, share a batch, and a failing batch is retried item by item.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBatcher } from '../../src/platform/batcher.ts';

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
