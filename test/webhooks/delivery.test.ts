// Webhook delivery end to end, with a real HTTP receiver on loopback: signed events for a payout's
// and a settlement's whole life, retries (error status, timeout), 410, type filters, giving up
// after the last attempt, deleted endpoints, and another member seeing none of it.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO_2, bearer, json, token } from '../support/http.ts';
import { eventually, payoutApi, payoutBody } from '../support/payouts.ts';
import { settlementApi, type Json } from '../support/settlements.ts';
import { registerEndpoint, startReceiver, type Receiver, type RegisteredEndpoint } from '../support/receiver.ts';
import { ATTEMPTS_MAX } from '../../src/webhooks/schedule.ts';
import { GONE_REASON, UNSEALABLE_REASON } from '../../src/webhooks/deliver.ts';
import { createSecretBox } from '../../src/webhooks/secrets.ts';

let service: TestService;
let receiver: Receiver;
let member: string;
let payouts: ReturnType<typeof payoutApi>;
let settlements: ReturnType<typeof settlementApi>;

before(async () => {
  service = await startTestService({ WORKERS: '2', WEBHOOK_TIMEOUT_MS: '1000' });
  receiver = await startReceiver();
  member = await token(service.url, { scope: 'member' });
  payouts = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
  settlements = settlementApi(service.url, await token(service.url, { scope: 'settlements' }));
});
after(async () => {
  await service.stop();
  await receiver.close();
});

type Endpoint = RegisteredEndpoint;
const register = (url: string, accessToken: string, eventTypes?: string[]) => registerEndpoint(service.url, accessToken, url, eventTypes);

async function remove(id: string, accessToken = member) {
  return fetch(`${service.url}/v2/webhook-endpoints/${id}`, { method: 'DELETE', headers: bearer(accessToken) });
}

type Delivered = { type: string; timestamp: string; data: Json; id: string; headers: Record<string, string>; body: string };

/** What the receiver got, parsed, for one resource (payoutId or settlementId). */
function deliveredFor(resourceId: string): Delivered[] {
  return receiver.received
    .map((r) => ({ ...(JSON.parse(r.body) as { type: string; timestamp: string; data: Json }), id: r.headers['webhook-id']!, headers: r.headers, body: r.body }))
    .filter((d) => d.data['payoutId'] === resourceId || d.data['settlementId'] === resourceId);
}

async function deliveries(eventId: string) {
  const { rows } = await service.db.query<{ status: string; attempts: number; lastError: string | null }>(
    `SELECT d.status, d.attempts, d.last_error AS "lastError" FROM webhook_deliveries d JOIN events e ON e.event_id = d.event_id WHERE e.event_key = $1`,
    [eventId],
  );
  return rows;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a payout and a settlement, start to finish', () => {
  let endpoint: Endpoint;
  before(async () => {
    endpoint = await register(receiver.url, member);
  });
  after(async () => {
    await remove(endpoint.webhookEndpointId);
  });
  beforeEach(() => {
    receiver.answer = () => ({ status: 200 });
  });

  test("a payout's whole life arrives as signed events that standardwebhooks' verify accepts", async () => {
    const created = await payouts.created(payoutBody('MX_SPEI'));
    const payoutId = created['payoutId'] as string;
    assert.equal((await payouts.process(payoutId)).status, 200);
    const got = await eventually(async () => deliveredFor(payoutId), (d) => d.length >= 2);
    const verifier = new Webhook(endpoint.secret);
    for (const d of got) {
      assert.doesNotThrow(() => verifier.verify(d.body, d.headers));
      assert.equal(d.type, 'payout.status_changed');
      assert.equal(d.data['eventId'], d.id, 'webhook-id is the eventId');
      assert.match(d.headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]+=*$/);
      assert.equal(d.data['sourceMemberPayoutId'], created['sourceMemberPayoutId']);
    }
    const bySequence = [...got].sort((a, b) => Number(a.data['sequence']) - Number(b.data['sequence']));
    assert.deepEqual(bySequence.map((d) => d.data['sequence']), [1, 2]);
    assert.deepEqual(bySequence.map((d) => [d.data['previousStatus'], d.data['payoutStatus']]), [[null, 'ACCP'], ['ACCP', 'PRCD']]);
    // a wrong secret does not verify
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got[0]!.body, got[0]!.headers));
    // the same events, in the same form, in the events list
    const listed = await json<{ events: Array<{ eventId: string; type: string; timestamp: string; data: Json }> }>(
      await fetch(`${service.url}/v2/events?limit=100`, { headers: bearer(member) }));
    for (const d of got) {
      const twin = listed.events.find((e) => e.eventId === d.id);
      assert.deepEqual(twin, { eventId: d.id, type: d.type, timestamp: d.timestamp, data: d.data });
    }
  });

  test('a cancellation arrives as payout.cancellation_status_changed', async () => {
    const payoutId = (await payouts.created(payoutBody('MX_SPEI')))['payoutId'] as string;
    assert.equal((await payouts.cancel(payoutId)).status, 202);
    const got = await eventually(async () => deliveredFor(payoutId), (d) => d.some((e) => e.type === 'payout.cancellation_status_changed'));
    const cancellation = got.find((e) => e.type === 'payout.cancellation_status_changed')!;
    assert.equal(cancellation.data['sequence'], 2);
    assert.doesNotThrow(() => new Webhook(endpoint.secret).verify(cancellation.body, cancellation.headers));
  });

  test("a settlement's whole life arrives, S200 to S600, each signed", async () => {
    const settlementId = (await settlements.settle('PARTNER_MX'))['settlementId'] as string;
    const got = await eventually(async () => deliveredFor(settlementId), (d) => d.some((e) => e.data['settlementStatus'] === 'S600_COMPLETED'), 20_000);
    const statuses = [...got].sort((a, b) => Number(a.data['sequence']) - Number(b.data['sequence'])).map((d) => d.data['settlementStatus']);
    assert.deepEqual(statuses, ['S200_RECEIVED', 'S300_IN_PROGRESS', 'S400_FIAT_WITHDRAWAL_IN_PROGRESS', 'S600_COMPLETED']);
    for (const d of got) {
      assert.equal(d.type, 'settlement.status_changed');
      assert.doesNotThrow(() => new Webhook(endpoint.secret).verify(d.body, d.headers));
    }
  });
});

describe('retries and endpoint states', () => {
  test('a receiver that answers 500 gets the same webhook-id again, and the attempts are recorded', async () => {
    const endpoint = await register(receiver.url, member, ['payout.status_changed']);
    const failedOnce = new Set<string>();
    receiver.answer = (r) => {
      const id = r.headers['webhook-id']!;
      if (failedOnce.has(id)) return { status: 200 };
      failedOnce.add(id);
      return { status: 500 };
    };
    try {
      const payoutId = (await payouts.created(payoutBody('MX_SPEI')))['payoutId'] as string;
      const got = await eventually(async () => deliveredFor(payoutId), (d) => d.length >= 2, 20_000);
      assert.equal(got[0]!.id, got[1]!.id, 'the retry carries the same webhook-id');
      assert.ok(got[1]!.headers['webhook-timestamp']! >= got[0]!.headers['webhook-timestamp']!);
      assert.ok(receiver.received.filter((r) => r.headers['webhook-id'] === got[0]!.id).length === 2);
      const retriedAfterMs = receiver.received.filter((r) => r.headers['webhook-id'] === got[0]!.id).map((r) => r.at);
      assert.ok(retriedAfterMs[1]! - retriedAfterMs[0]! >= 4000 && retriedAfterMs[1]! - retriedAfterMs[0]! < 10_000, 'first retry after about 5 s');
      const [delivery] = await eventually(() => deliveries(got[0]!.id), (rows) => rows[0]?.status === 'SUCCEEDED');
      assert.deepEqual(delivery, { status: 'SUCCEEDED', attempts: 2, lastError: null });
      const { rows } = await service.db.query(`SELECT a.attempt, a.response_status AS "responseStatus", a.error FROM webhook_attempts a
        JOIN webhook_deliveries d USING (delivery_id) JOIN events e ON e.event_id = d.event_id WHERE e.event_key = $1 ORDER BY a.attempt`, [got[0]!.id]);
      assert.deepEqual(rows, [{ attempt: 1, responseStatus: 500, error: 'answered 500' }, { attempt: 2, responseStatus: 200, error: null }]);
    } finally {
      await remove(endpoint.webhookEndpointId);
    }
  });

  test('a receiver that does not answer within the timeout is tried again', async () => {
    const endpoint = await register(receiver.url, member, ['payout.status_changed']);
    const hungOnce = new Set<string>();
    receiver.answer = (r) => {
      const id = r.headers['webhook-id']!;
      if (hungOnce.has(id)) return { status: 204 };
      hungOnce.add(id);
      return 'hang';
    };
    try {
      const payoutId = (await payouts.created(payoutBody('MX_SPEI')))['payoutId'] as string;
      const got = await eventually(async () => deliveredFor(payoutId), (d) => d.length >= 2, 20_000);
      assert.equal(got[0]!.id, got[1]!.id);
      const [delivery] = await eventually(() => deliveries(got[0]!.id), (rows) => rows[0]?.status === 'SUCCEEDED');
      assert.equal(delivery!.attempts, 2);
      const { rows } = await service.db.query(`SELECT a.error FROM webhook_attempts a JOIN webhook_deliveries d USING (delivery_id)
        JOIN events e ON e.event_id = d.event_id WHERE e.event_key = $1 AND a.attempt = 1`, [got[0]!.id]);
      assert.equal(rows[0]!.error, 'no answer within 1000 ms');
    } finally {
      await remove(endpoint.webhookEndpointId);
    }
  });

  test('410 Gone disables the endpoint: the delivery fails, later events are not sent to it', async () => {
    const endpoint = await register(receiver.url, member, ['payout.status_changed']);
    receiver.answer = () => ({ status: 410 });
    const payoutId = (await payouts.created(payoutBody('MX_SPEI')))['payoutId'] as string;
    const [first] = await eventually(async () => deliveredFor(payoutId), (d) => d.length >= 1);
    await eventually(() => deliveries(first!.id), (rows) => rows[0]?.status === 'FAILED');
    const listed = await json<Array<Json>>(await fetch(`${service.url}/v2/webhook-endpoints`, { headers: bearer(member) }));
    const mine = listed.find((e) => e['webhookEndpointId'] === endpoint.webhookEndpointId)!;
    assert.equal(mine['status'], 'DISABLED');
    assert.equal(mine['statusReason'], GONE_REASON);
    receiver.answer = () => ({ status: 200 });
    assert.equal((await payouts.process(payoutId)).status, 200);
    await sleep(1000);
    assert.equal(deliveredFor(payoutId).length, 1, 'nothing more reaches a disabled endpoint');
    const { rows } = await service.db.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_endpoint_id = $1', [endpoint.webhookEndpointId]);
    assert.equal(rows[0]!.n, 1);
    await remove(endpoint.webhookEndpointId);
  });

  test('event type filters: an endpoint gets only the types it asked for', async () => {
    const endpoint = await register(receiver.url, member, ['payout.cancellation_status_changed']);
    receiver.answer = () => ({ status: 200 });
    try {
      const payoutId = (await payouts.created(payoutBody('MX_SPEI')))['payoutId'] as string;
      assert.equal((await payouts.cancel(payoutId)).status, 202);
      await eventually(async () => payouts.record(payoutId), (p) => p['payoutStatus'] === 'CNCL');
      await sleep(500);
      const got = deliveredFor(payoutId).sort((a, b) => Number(a.data['sequence']) - Number(b.data['sequence']));
      assert.ok(got.length >= 1);
      assert.ok(got.every((d) => d.type === 'payout.cancellation_status_changed'), 'no payout.status_changed (ACCP, CNCL) reached it');
      assert.equal(got[0]!.data['payoutCancellationStatus'], 'PNDG');
      assert.equal(got[0]!.data['previousStatus'], null);
    } finally {
      await remove(endpoint.webhookEndpointId);
    }
  });

  test('after the last attempt the delivery fails and no further job is queued', async () => {
    const endpoint = await register(receiver.url, member, ['payout.status_changed']);
    receiver.answer = () => ({ status: 503 });
    try {
      const payoutId = (await payouts.created(payoutBody('MX_SPEI')))['payoutId'] as string;
      const [first] = await eventually(async () => deliveredFor(payoutId), (d) => d.length >= 1);
      await eventually(() => deliveries(first!.id), (rows) => rows[0]?.attempts === 1);
      // the retry is five seconds out; move the delivery to its last attempt and run it now
      await service.db.query(
        `WITH d AS (UPDATE webhook_deliveries SET attempts = $2 WHERE webhook_endpoint_id = $1 RETURNING delivery_id)
         UPDATE graphile_worker._private_jobs j SET run_at = now(), payload = json_build_object('deliveryId', d.delivery_id, 'attempt', $2)
           FROM d WHERE j.payload->>'deliveryId' = d.delivery_id::text`,
        [endpoint.webhookEndpointId, ATTEMPTS_MAX - 1],
      );
      const [delivery] = await eventually(() => deliveries(first!.id), (rows) => rows[0]?.status === 'FAILED');
      assert.deepEqual(delivery, { status: 'FAILED', attempts: ATTEMPTS_MAX, lastError: 'answered 503' });
      // the job that ran is completed a moment after it returns; a next attempt's job would stay (run_at 5 s or more ahead)
      const jobsLeft = () => service.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM graphile_worker._private_jobs WHERE payload->>'deliveryId' IN
        (SELECT delivery_id::text FROM webhook_deliveries WHERE webhook_endpoint_id = $1)`, [endpoint.webhookEndpointId]);
      assert.equal((await eventually(jobsLeft, (r) => r.rows[0]!.n === 0, 3000)).rows[0]!.n, 0);
    } finally {
      await remove(endpoint.webhookEndpointId);
    }
  });

  test('a secret sealed under another CLIENT_SECRET_KEY fails the delivery with the reason, and nothing is sent', async () => {
    const endpoint = await register(receiver.url, member, ['payout.status_changed']);
    receiver.answer = () => ({ status: 200 });
    try {
      const foreign = createSecretBox(Buffer.alloc(32, 9)).seal(endpoint.secret);
      await service.db.query('UPDATE webhook_endpoints SET secret_sealed = $2 WHERE webhook_endpoint_id = $1', [endpoint.webhookEndpointId, foreign]);
      const payoutId = (await payouts.created(payoutBody('MX_SPEI')))['payoutId'] as string;
      const rows = await eventually(() => service.db.query<{ status: string; lastError: string; attempts: number }>(
        `SELECT status, last_error AS "lastError", attempts FROM webhook_deliveries WHERE webhook_endpoint_id = $1`, [endpoint.webhookEndpointId]),
      (r) => r.rows[0]?.status === 'FAILED');
      assert.deepEqual(rows.rows, [{ status: 'FAILED', lastError: UNSEALABLE_REASON, attempts: 0 }]);
      assert.equal(deliveredFor(payoutId).length, 0);
    } finally {
      await remove(endpoint.webhookEndpointId);
    }
  });

  test('a deleted endpoint gets nothing more: its pending deliveries end without another attempt', async () => {
    const endpoint = await register(receiver.url, member, ['payout.status_changed']);
    receiver.answer = () => ({ status: 500 });
    const payoutId = (await payouts.created(payoutBody('MX_SPEI')))['payoutId'] as string;
    const [first] = await eventually(async () => deliveredFor(payoutId), (d) => d.length >= 1);
    await eventually(() => deliveries(first!.id), (rows) => rows[0]?.attempts === 1);
    assert.equal((await remove(endpoint.webhookEndpointId)).status, 204);
    const [delivery] = await eventually(() => deliveries(first!.id), (rows) => rows[0]?.status === 'FAILED', 15_000);
    assert.deepEqual(delivery, { status: 'FAILED', attempts: 1, lastError: 'the endpoint is deleted' });
    assert.equal(deliveredFor(payoutId).length, 1);
  });
});

test("another member's endpoints get none of this member's events, and it cannot see or delete this member's endpoints", async () => {
  const other = await token(service.url, { ...DEMO_2, scope: 'member' });
  const otherReceiver = await startReceiver();
  const mine = await register(receiver.url, member, ['payout.status_changed']);
  const theirs = await register(otherReceiver.url, other);
  receiver.answer = () => ({ status: 200 });
  try {
    const payoutId = (await payouts.created(payoutBody('MX_SPEI')))['payoutId'] as string;
    await eventually(async () => deliveredFor(payoutId), (d) => d.length >= 1);
    await sleep(500);
    assert.equal(otherReceiver.received.length, 0);
    const listed = await json<Array<Json>>(await fetch(`${service.url}/v2/webhook-endpoints`, { headers: bearer(other) }));
    assert.deepEqual(listed.map((e) => e['webhookEndpointId']), [theirs.webhookEndpointId]);
    assert.equal((await fetch(`${service.url}/v2/webhook-endpoints/${mine.webhookEndpointId}`, { headers: bearer(other) })).status, 404);
    assert.equal((await remove(mine.webhookEndpointId, other)).status, 404);
    const events = await json<{ events: Array<{ data: Json }> }>(await fetch(`${service.url}/v2/events?limit=100`, { headers: bearer(other) }));
    assert.ok(!events.events.some((e) => e.data['payoutId'] === payoutId));
  } finally {
    await remove(mine.webhookEndpointId);
    await remove(theirs.webhookEndpointId, other);
    await otherReceiver.close();
  }
});
