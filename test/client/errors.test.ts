// Every non-2xx answer is a thrown ApiError with the service's code, message and detail, the HTTP
// status and the X-Request-Id.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ApiError, type PayoutClient } from '../../client/src/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { demoClient, newPayout, recordingFetch } from '../support/client.ts';

let service: TestService;
let client: PayoutClient;
const recorder = recordingFetch();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

before(async () => {
  service = await startTestService({ WORKERS: '0' });
  client = demoClient(service.url, { fetch: recorder.fetch });
});
after(async () => {
  await service.stop();
});

/** The error a call rejects with, checked to be an ApiError. */
async function apiError(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof ApiError, `an ApiError, not ${String(error)}`);
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'ApiError');
    return error;
  }
  assert.fail('the call should have failed');
}

test('a 422 from a helper: code, message, detail and the request id', async () => {
  const error = await apiError(client.createSettlement({
    destinationMemberId: 'NO_SUCH_MEMBER', settlementAmt: 100, rateId: randomUUID(), executionInterval: 'IMMEDIATE',
  }));
  assert.equal(error.status, 422);
  assert.equal(error.code, 'UNKNOWN_DESTINATION_MEMBER');
  assert.equal(error.message, 'No such destination member.');
  assert.match(error.detail, /destinationMemberId/);
  assert.match(error.requestId ?? '', UUID);
  assert.equal(recorder.count('/v2/settlements', 'POST'), 1, 'not retried');
});

test('a 422 from a payout creation (a provider that does not exist)', async () => {
  const error = await apiError(client.createPayout(newPayout({ payoutProviderId: 'XX_NOWHERE' })));
  assert.equal(error.status, 422);
  assert.equal(error.code, 'UNKNOWN_PAYOUT_PROVIDER');
  assert.match(error.detail, /payoutProviderId/);
  assert.ok(error.requestId);
});

test('a 404 from a typed call, with the X-Request-Id the caller sent', async () => {
  const payoutId = randomUUID();
  const error = await apiError(client.GET('/v2/payouts/{payoutId}', { params: { path: { payoutId } }, headers: { 'x-request-id': 'client-test-404' } }));
  assert.equal(error.status, 404);
  assert.equal(error.code, 'NOT_FOUND');
  assert.equal(error.message, 'No such payout.');
  assert.equal(error.detail, `payoutId: ${payoutId}`);
  assert.equal(error.requestId, 'client-test-404');
});

test('a 400 names the offending field in detail', async () => {
  const error = await apiError(client.GET('/v2/payouts', { params: { query: { page: 0, size: 1000, sortField: 'creationTime', sortDirection: 'desc' } } }));
  assert.equal(error.status, 400);
  assert.equal(error.code, 'VALIDATION_ERROR');
  assert.match(error.detail, /size/);
});

test('a 409 on a finished payout', async () => {
  const { payoutId } = await client.createPayout(newPayout());
  await client.POST('/v2/payouts/{payoutId}/process', { params: { path: { payoutId } } });
  const error = await apiError(client.POST('/v2/payouts/{payoutId}/cancel', { params: { path: { payoutId } }, body: { cancellationReason: 'Customer request' } }));
  assert.equal(error.status, 409);
  assert.equal(error.code, 'INVALID_STATE');
});
