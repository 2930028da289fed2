// The bound on requests in flight per endpoint and per member: wait for a quick key, give up at once on a slow one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSlots, type Slot } from '../../src/webhooks/slots.ts';

test('up to the bound a slot is given at once; endpoints are counted apart', async () => {
  const slots = createSlots(2, { nowMs: () => 0 });
  assert.equal(typeof (await slots.acquire('a')), 'object');
  assert.equal(typeof (await slots.acquire('a')), 'object');
  assert.equal(typeof (await slots.acquire('b')), 'object', 'another endpoint is not affected');
});

test('at the bound, a quick endpoint makes the next delivery wait for the first slot freed', async () => {
  let now = 0;
  const slots = createSlots(1, { nowMs: () => now });
  const first = (await slots.acquire('a')) as Slot;
  const waiting = slots.acquire('a');
  now = 100; // still under the slow mark
  first.release();
  const second = await waiting;
  assert.equal(typeof second, 'object', 'the waiting delivery got the freed slot');
});

test('at the bound, a slow endpoint (a request out for more than 250 ms) refuses at once', async () => {
  let now = 0;
  const slots = createSlots(1, { nowMs: () => now });
  await slots.acquire('a');
  now = 300;
  const started = performance.now();
  assert.equal(await slots.acquire('a'), 'SLOW');
  assert.ok(performance.now() - started < 50, 'no wait');
});

test('a wait that no release ends gives up after 250 ms', async () => {
  const slots = createSlots(1, { nowMs: () => 0 });
  await slots.acquire('a');
  const started = performance.now();
  assert.equal(await slots.acquire('a'), 'BUSY');
  assert.ok(performance.now() - started >= 200);
  // a release after the give-up does not hand the slot to the gone waiter
  const again = createSlots(1, { nowMs: () => 0 });
  const held = (await again.acquire('x')) as Slot;
  const gaveUp = await again.acquire('x');
  assert.equal(gaveUp, 'BUSY');
  held.release();
  assert.equal(typeof (await again.acquire('x')), 'object', 'the slot is free again');
});

test('a slot released twice frees one place only', async () => {
  const slots = createSlots(1, { nowMs: () => 0 });
  const held = (await slots.acquire('a')) as Slot;
  held.release();
  const next = (await slots.acquire('a')) as Slot;
  held.release(); // a late second release must not free the slot the next delivery holds
  assert.equal(slots.inFlight('a'), 1);
  next.release();
  assert.equal(slots.inFlight('a'), 0);
});

test('past its waiters bound a key refuses at once, so its deliveries cannot all sit waiting on workers', async () => {
  const slots = createSlots(1, { waitersMax: 1, nowMs: () => 0 });
  const held = (await slots.acquire('a')) as Slot;
  const waiting = slots.acquire('a');
  const started = performance.now();
  assert.equal(await slots.acquire('a'), 'BUSY');
  assert.ok(performance.now() - started < 50, 'no wait');
  held.release();
  assert.equal(typeof (await waiting), 'object', 'the one waiter got the slot');
});
