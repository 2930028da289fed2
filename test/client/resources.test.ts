// The resource methods against the real sandbox: each calls its operation and answers its typed
// body; a list awaited is one page and iterated is every item from that page on.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { PayoutClient } from '../../client/src/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { collect, demoClient, newPayout, recordingFetch } from '../support/client.ts';

let service: TestService;
let client: PayoutClient;
const recorder = recordingFetch();

before(async () => {
  service = await startTestService({ WORKERS: '0' });
  client = demoClient(service.url, { fetch: recorder.fetch });
});
after(async () => {
  await service.stop();
});

test('codes, providers, limits and destination members', async () => {
  const [sourceOfFunds, purposes, relationships] = await Promise.all([client.codes.sourceOfFunds(), client.codes.purposes(), client.codes.relationships()]);
  assert.ok(sourceOfFunds.some((c) => c.code === 'SALARY'));
  assert.ok(purposes.some((c) => c.code === 'FAMILY_MAINTENANCE'));
  assert.ok(relationships.some((c) => c.code === 'FAMILY'));
  const mexican = await client.providers.list({ countryCode: 'MX' });
  assert.ok(mexican.length > 0 && mexican.every((p) => p.countryCode === 'MX'));
  const spei = await client.providers.get('MX_SPEI');
  assert.equal(spei.payoutProviderId, 'MX_SPEI');
  const limits = await client.providers.limits({ payoutProviderId: 'MX_SPEI' });
  assert.ok(limits.every((l) => l.payoutProviderId === 'MX_SPEI' && l.minimumLimit <= l.maximumLimit));
  const members = await client.members.list();
  assert.ok(members.some((m) => m.memberId === 'PARTNER_MX'));
});

test('payouts: create, status, cancel, get; list awaited is one page, iterated is every page from there', async () => {
  const lastName = `Res${randomUUID().slice(0, 8)}`;
  const sender = { firstName: 'Rita', lastName, countryCode: 'US', dateOfBirth: '1980-05-17' };
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await client.payouts.create(newPayout({ sender }))).payout.payoutId);
  const status = await client.payouts.status(ids[0]!);
  assert.equal(status.payoutStatus, 'ACCP');
  const cancelled = await client.payouts.cancel(ids[0]!, { cancellationReason: 'customer request' });
  assert.equal(cancelled.payoutCancellationStatus, 'PNDG');
  assert.equal((await client.payouts.get(ids[0]!)).payoutId, ids[0]);

  const before = recorder.count('/v2/payouts', 'GET');
  const page = await client.payouts.list({ senderName: lastName, size: 2 });
  assert.equal(page.totalRecords, 3);
  assert.equal(page.payouts.length, 2);
  assert.equal(recorder.count('/v2/payouts', 'GET') - before, 1, 'awaited: one request');
  const all = await collect(client.payouts.list({ senderName: lastName, size: 2, sortDirection: 'asc' }));
  assert.deepEqual(all.map((p) => p.payoutId), ids);
  assert.equal(recorder.count('/v2/payouts', 'GET') - before, 3, 'iterated: pages 0 and 1 more');
});

test('settlements: context, a rate lock, a scheduled settlement cancelled, get, list', async () => {
  const context = await client.settlements.context();
  assert.ok(context.corridors.some((c) => c.destinationMemberId === 'PARTNER_MX'));
  const rate = await client.rates.lock({ destinationMemberId: 'PARTNER_MX' });
  const { settlement, replayed, idempotencyKey } = await client.settlements.create({
    destinationMemberId: 'PARTNER_MX', settlementAmt: 20, rateId: rate.rateId, executionInterval: 'ONE_HOUR',
  });
  assert.equal(replayed, false);
  assert.match(idempotencyKey, /^[0-9a-f-]{36}$/);
  assert.equal(settlement.settlementStatus, 'S100_SCHEDULED');
  const cancelled = await client.settlements.cancel(settlement.settlementId);
  assert.equal(cancelled.settlementStatus, 'S500_TERMINATED');
  assert.equal((await client.settlements.get(settlement.settlementId)).settlementStatus, 'S500_TERMINATED');
  const terminated = await collect(client.settlements.list({ settlementStatus: 'S500_TERMINATED', size: 1 }));
  assert.ok(terminated.some((s) => s.settlementId === settlement.settlementId));
});

test('events: list awaited is one page with nextAfter; iterated goes on from there until an empty page', async () => {
  const page = await client.events.list({ limit: 2 });
  assert.equal(page.events.length, 2);
  assert.equal(page.nextAfter, page.events[1]!.eventId);
  const all = await collect(client.events.list({ limit: 2 }));
  assert.ok(all.length > 2);
  assert.deepEqual(all.slice(0, 2).map((e) => e.eventId), page.events.map((e) => e.eventId));
  assert.equal(new Set(all.map((e) => e.eventId)).size, all.length, 'each event once');
  const rest = await collect(client.events.iterate({ after: all.at(-2)!.eventId }));
  assert.deepEqual(rest.map((e) => e.eventId), [all.at(-1)!.eventId]);
});
