// The client package against mock mode: the same flows as against the sandbox, answered from the
// OpenAPI examples with the caller's own values, and the mock's error examples as typed errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, createClient, type PayoutClient } from '../../client/src/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { collect, newPayout } from '../support/client.ts';

let mock: TestService;
let client: PayoutClient;
before(async () => {
  mock = await startTestService({ MODE: 'mock' });
  // the mock accepts any client id and secret
  client = createClient({ baseUrl: mock.url, clientId: 'my-integration-tests', clientSecret: 'not-checked' });
});
after(async () => {
  await mock.stop();
});

test('a payout: create (my values echoed), process, get by id, iterate', async () => {
  const body = newPayout({ payoutAmt: 777.5 });
  const created = await client.createPayout(body);
  assert.equal(created.sourceMemberPayoutId, body.sourceMemberPayoutId);
  assert.equal(created.payoutAmt, 777.5);
  const { data: processed } = await client.POST('/v2/payouts/{payoutId}/process', { params: { path: { payoutId: created.payoutId } } });
  assert.equal(processed?.payoutStatus, 'PRCD');
  const { data: pickup } = await client.POST('/v2/payouts/{payoutId}/process', {
    params: { path: { payoutId: created.payoutId } }, headers: { prefer: 'example=cashPickupPending' },
  });
  assert.deepEqual(pickup, { payoutStatus: 'PNDG', cashoutStatus: 'READY_FOR_PICKUP' });
  const { data: record } = await client.GET('/v2/payouts/{payoutId}', { params: { path: { payoutId: created.payoutId } } });
  assert.equal(record?.payoutId, created.payoutId);
  const listed = await collect(client.payouts.iterate({ size: 10 }));
  assert.ok(listed.length >= 1);
});

test('a settlement: context, a rate, a settlement with an idempotency key, get it back', async () => {
  const { data: context } = await client.GET('/v2/settlement-context');
  assert.ok((context?.corridors.length ?? 0) > 0);
  const { data: rate } = await client.GET('/v2/settlement-rates', { params: { query: { destinationMemberId: 'PARTNER_MX' } } });
  assert.ok(rate?.rateId);
  const settlement = await client.createSettlement({ destinationMemberId: 'PARTNER_MX', settlementAmt: 4321, rateId: rate!.rateId, executionInterval: 'IMMEDIATE' });
  assert.equal(settlement.settlementAmt, 4321);
  assert.equal(settlement.rateId, rate!.rateId);
  const { data: again } = await client.GET('/v2/settlements/{settlementId}', { params: { path: { settlementId: settlement.settlementId } } });
  assert.equal(again?.settlementId, settlement.settlementId);
});

test("the mock's error examples arrive as typed errors, and its validation as the real one's", async () => {
  await assert.rejects(
    client.POST('/v2/payouts', { body: newPayout(), headers: { prefer: 'code=422' } }),
    (error: unknown) => error instanceof ApiError && error.status === 422 && error.code === 'INSUFFICIENT_PREFUND' && typeof error.requestId === 'string',
  );
  await assert.rejects(
    client.createPayout(newPayout({ payoutAmt: 'lots' })),
    (error: unknown) => error instanceof ApiError && error.status === 400 && error.code === 'VALIDATION_ERROR' && /payoutAmt/.test(error.detail),
  );
});
