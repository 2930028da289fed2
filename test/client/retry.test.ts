// Creations after a dropped connection: the request reached the service but its answer was lost.
// payouts.create sends the same body again (the service is idempotent on sourceMemberPayoutId) and
// settlements.create the same Idempotency-Key: either way exactly one is created. Retries are
// bounded and HTTP errors other than 429 and 503 are not retried.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type PayoutClient } from '../../client/src/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { collect, demoClient, dropAfterSending, newPayout, recordingFetch } from '../support/client.ts';

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

const postsTo = (path: string) => recorder.sent.filter((s) => s.method === 'POST' && s.path === path);

test('a payout creation whose answer was lost is sent again with the same body and creates exactly one payout', async () => {
  const body = newPayout();
  const sentBefore = postsTo('/v2/payouts').length;
  let firstBody = '';
  recorder.interceptNext('/v2/payouts', async (request, send) => {
    firstBody = await request.clone().text();
    return dropAfterSending(request, send);
  });
  const { payout: created, replayed } = await client.payouts.create(body);
  assert.equal(replayed, true, 'the answer is the replay of the first attempt');
  const attempts = postsTo('/v2/payouts').slice(sentBefore);
  assert.deepEqual(attempts.map((a) => a.status), [201, 201], 'the first got through (its answer was lost), the second was answered');
  assert.equal(JSON.parse(firstBody).sourceMemberPayoutId, body.sourceMemberPayoutId);
  assert.equal(created.sourceMemberPayoutId, body.sourceMemberPayoutId);

  // through the API: one payout with that sourceMemberPayoutId
  const { data: page } = await client.GET('/v2/payouts', {
    params: { query: { sourceMemberPayoutId: body.sourceMemberPayoutId, page: 0, size: 10, sortField: 'creationTime', sortDirection: 'desc' } },
  });
  assert.equal(page?.totalRecords, 1);
  assert.equal(page?.payouts[0]?.payoutId, created.payoutId);
  const listed = await collect(client.payouts.iterate({ sourceMemberPayoutId: body.sourceMemberPayoutId }));
  assert.deepEqual(listed.map((p) => p.payoutId), [created.payoutId]);
});

test('a settlement creation whose answer was lost is sent again with the same Idempotency-Key and creates exactly one settlement', async () => {
  const startedAt = new Date(Date.now() - 1000).toISOString();
  const rate = await client.rates.lock({ destinationMemberId: 'PARTNER_MX' });
  const sentBefore = postsTo('/v2/settlements').length;
  recorder.interceptNext('/v2/settlements', dropAfterSending);
  const { settlement: created, replayed } = await client.settlements.create({ destinationMemberId: 'PARTNER_MX', settlementAmt: 125, rateId: rate.rateId, executionInterval: 'IMMEDIATE' });
  assert.equal(replayed, true);
  const attempts = postsTo('/v2/settlements').slice(sentBefore);
  assert.equal(attempts.length, 2);
  assert.match(attempts[0]!.idempotencyKey ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a generated UUID');
  assert.equal(attempts[1]!.idempotencyKey, attempts[0]!.idempotencyKey, 'the retry reuses the key');
  assert.deepEqual(attempts.map((a) => a.status), [201, 201]);
  const withThisRate = (await collect(client.settlements.iterate({ createdAfter: startedAt }))).filter((s) => s.rateId === rate.rateId);
  assert.deepEqual(withThisRate.map((s) => s.settlementId), [created.settlementId]);
});

test('each call of settlements.create without a key gets its own key', async () => {
  const keys: string[] = [];
  for (let i = 0; i < 2; i++) {
    const rate = await client.rates.lock({ destinationMemberId: 'PARTNER_MX' });
    await client.settlements.create({ destinationMemberId: 'PARTNER_MX', settlementAmt: 10, rateId: rate.rateId, executionInterval: 'IMMEDIATE' });
    keys.push(postsTo('/v2/settlements').at(-1)!.idempotencyKey!);
  }
  assert.notEqual(keys[0], keys[1]);
});

test('retries are bounded: a connection that never answers fails after the set number of attempts', async () => {
  const failing = recordingFetch();
  const bounded = demoClient(service.url, {
    retry: { attempts: 3, baseDelayMs: 5 },
    fetch: (request) => {
      if (new URL(request.url).pathname === '/v2/payouts') failing.interceptNext('/v2/payouts', () => Promise.reject(new TypeError('fetch failed')));
      return failing.fetch(request);
    },
  });
  const body = newPayout();
  await assert.rejects(bounded.payouts.create(body), (error: unknown) => error instanceof TypeError && error.message === 'fetch failed');
  assert.equal(failing.count('/v2/payouts', 'POST'), 3);
  const listed = await collect(client.payouts.iterate({ sourceMemberPayoutId: body.sourceMemberPayoutId }));
  assert.equal(listed.length, 0, 'none reached the service');
});

test('an HTTP error is not retried', async () => {
  const sentBefore = postsTo('/v2/payouts').length;
  const body = newPayout({ payoutAmt: -5 });
  await assert.rejects(client.payouts.create(body), (error: unknown) => error instanceof ApiError && error.status === 400);
  assert.equal(postsTo('/v2/payouts').length - sentBefore, 1);
});

test("the caller's own abort is not retried", async () => {
  const sentBefore = recorder.sent.length;
  recorder.interceptNext('/v2/payouts', () => Promise.reject(new DOMException('This operation was aborted', 'AbortError')));
  await assert.rejects(client.payouts.create(newPayout()), (error: unknown) => error instanceof DOMException && error.name === 'AbortError');
  assert.equal(recorder.sent.length - sentBefore, 1);
});
