// The client package against the real sandbox service: a payout and a settlement from start to
// finish, through its resource methods and its page iterators.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { PayoutClient, Settlement } from '../../client/src/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { collect, demoClient, newPayout, recordingFetch, sleep } from '../support/client.ts';

let service: TestService;
let client: PayoutClient;
const recorder = recordingFetch();

before(async () => {
  service = await startTestService({ WORKERS: '2' });
  client = demoClient(service.url, { fetch: recorder.fetch });
});
after(async () => {
  await service.stop();
});

test('a payout: create, process to PRCD, get, then find it with the iterator', async () => {
  const body = newPayout();
  const { payout: created, replayed } = await client.payouts.create(body);
  assert.equal(replayed, false);
  assert.equal(created.sourceMemberPayoutId, body.sourceMemberPayoutId);
  assert.equal(created.payoutStatus, 'ACCP');
  const payoutId = created.payoutId;

  const processed = await client.payouts.process(payoutId);
  assert.equal(processed.payoutStatus, 'PRCD');

  const record = await client.payouts.get(payoutId);
  assert.equal(record.payoutId, payoutId);
  assert.equal(record.payoutStatus, 'PRCD');
  assert.equal(record.payoutAmt, 1000);

  const found = await collect(client.payouts.iterate({ sourceMemberPayoutId: body.sourceMemberPayoutId }));
  assert.deepEqual(found.map((p) => [p.payoutId, p.payoutStatus]), [[payoutId, 'PRCD']]);
});

test('payouts.iterate walks every page (page, size, totalPages) and yields each payout once', async () => {
  const lastName = `Pages${randomUUID().slice(0, 8)}`;
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    ids.push((await client.payouts.create(newPayout({ sender: { firstName: 'Paula', lastName, countryCode: 'US', dateOfBirth: '1980-05-17' } }))).payout.payoutId);
  }
  const before = recorder.count('/v2/payouts', 'GET');
  const found = await collect(client.payouts.iterate({ senderName: lastName, size: 2 }));
  assert.equal(recorder.count('/v2/payouts', 'GET') - before, 3, 'pages 0, 1 and 2 of 3');
  assert.deepEqual(found.map((p) => p.payoutId), [...ids].reverse(), 'newest first (creationTime desc)');
  const ascending = await collect(client.payouts.iterate({ senderName: lastName, size: 2, sortDirection: 'asc' }));
  assert.deepEqual(ascending.map((p) => p.payoutId), ids);
  const fromPage1 = await collect(client.payouts.iterate({ senderName: lastName, size: 2, page: 1 }));
  assert.equal(fromPage1.length, 3);
});

test('a settlement: context, a locked rate, an IMMEDIATE settlement with an idempotency key, S600_COMPLETED, then the iterators', async () => {
  const context = await client.settlements.context();
  const corridor = context.corridors.find((c) => c.destinationMemberId === 'PARTNER_MX');
  assert.ok(corridor?.active, 'the demo member has an active corridor to PARTNER_MX');

  const rate = await client.rates.lock({ destinationMemberId: 'PARTNER_MX' });
  assert.equal(rate.destinationCcy, corridor.destinationCcy);

  const idempotencyKey = `flow-${randomUUID()}`;
  const body = { destinationMemberId: 'PARTNER_MX', settlementAmt: 250, rateId: rate.rateId, executionInterval: 'IMMEDIATE' as const, notes: 'client flow' };
  const { settlement: created, replayed } = await client.settlements.create(body, { idempotencyKey });
  assert.equal(replayed, false);
  assert.equal(created.settlementStatus, 'S200_RECEIVED');
  assert.equal(created.rate, rate.rate);
  assert.equal(recorder.sent.at(-1)?.idempotencyKey, idempotencyKey);
  // the same key again answers the same settlement (the rate lock is not used twice)
  const again = await client.settlements.create(body, { idempotencyKey });
  assert.equal(again.replayed, true, 'a replay, told from a creation');
  assert.equal(again.settlement.settlementId, created.settlementId);

  let settlement: Settlement = created;
  const deadline = Date.now() + 20_000;
  while (settlement.settlementStatus !== 'S600_COMPLETED' && Date.now() < deadline) {
    await sleep(100);
    settlement = await client.settlements.get(created.settlementId);
  }
  assert.equal(settlement.settlementStatus, 'S600_COMPLETED');
  assert.equal(settlement.pendingAmt, 0);
  assert.ok(Math.abs((settlement.settlementAmtReceived ?? 0) - 250 * rate.rate) < 0.01, 'settlementAmt * rate, in MXN');

  const completed = await collect(client.settlements.iterate({ settlementStatus: 'S600_COMPLETED', size: 1 }));
  assert.ok(completed.some((s) => s.settlementId === created.settlementId));
  assert.equal(new Set(completed.map((s) => s.settlementId)).size, completed.length, 'each settlement once');

  // its status changes, oldest first, through the events iterator
  const events = (await collect(client.events.iterate({ limit: 2 }))).filter((e) => e.data['settlementId'] === created.settlementId);
  assert.equal(events.at(-1)?.type, 'settlement.status_changed');
  assert.equal(events.at(-1)?.data['settlementStatus'], 'S600_COMPLETED');
  const sequences = events.map((e) => Number(e.data['sequence']));
  assert.deepEqual(sequences, [...sequences].sort((a, b) => a - b));
});

test('events.iterate resumes after a given event and stops at an empty page', async () => {
  const all = await collect(client.events.iterate());
  assert.ok(all.length >= 3);
  const middle = all[Math.floor(all.length / 2)]!;
  const rest = await collect(client.events.iterate({ after: middle.eventId, limit: 1 }));
  const expected = all.slice(all.indexOf(middle) + 1).map((e) => e.eventId);
  assert.deepEqual(rest.map((e) => e.eventId).slice(0, expected.length), expected);
  const last = all.at(-1)!;
  const none = await collect(client.events.iterate({ after: (rest.at(-1) ?? last).eventId }));
  assert.deepEqual(none, []);
});
