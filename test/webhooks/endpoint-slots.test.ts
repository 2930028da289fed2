// The per-endpoint bound on requests in flight: wait for a quick endpoint, give up at once on a slow one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEndpointSlots } from '../../src/webhooks/endpoint-slots.ts';

test('up to the bound a slot is given at once; endpoints are counted apart', async () => {
  const slots = createEndpointSlots(2, () => 0);
  assert.ok(await slots.acquire('a'));
  assert.ok(await slots.acquire('a'));
  assert.ok(await slots.acquire('b'), 'another endpoint is not affected');
});

test('at the bound, a quick endpoint makes the next delivery wait for the first slot freed', async () => {
  let now = 0;
  const slots = createEndpointSlots(1, () => now);
  const first = (await slots.acquire('a'))!;
  const waiting = slots.acquire('a');
  now = 100; // still under the slow mark
  first.release();
  const second = await waiting;
  assert.ok(second, 'the waiting delivery got the freed slot');
});

test('at the bound, a slow endpoint (a request out for more than 250 ms) refuses at once', async () => {
  let now = 0;
  const slots = createEndpointSlots(1, () => now);
  await slots.acquire('a');
  now = 300;
  const started = performance.now();
  assert.equal(await slots.acquire('a'), undefined);
  assert.ok(performance.now() - started < 50, 'no wait');
});

test('a wait that no release ends gives up after 250 ms', async () => {
  const slots = createEndpointSlots(1, () => 0);
  await slots.acquire('a');
  const started = performance.now();
  assert.equal(await slots.acquire('a'), undefined);
  assert.ok(performance.now() - started >= 200);
  // a release after the give-up does not hand the slot to the gone waiter
  const again = createEndpointSlots(1, () => 0);
  const held = (await again.acquire('x'))!;
  const gaveUp = await again.acquire('x');
  assert.equal(gaveUp, undefined);
  held.release();
  assert.ok(await again.acquire('x'), 'the slot is free again');
});
