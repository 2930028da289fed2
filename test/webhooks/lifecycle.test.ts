// Webhook endpoints that members manage themselves, end to end with a real receiver on loopback:
// update (pending deliveries follow the new URL), test events (signed, delivered and recorded like
// any other, bounded per minute, not in the events list), secret rotation with an overlap (two
// signatures, each verifying alone, then one), disable and enable (after a 410 too, circuit
// closed, deliveries flowing again), and every refusal with its status and code.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO_2, bearer, expectError, json, token } from '../support/http.ts';
import { eventually, payoutApi, payoutBody } from '../support/payouts.ts';
import { registerEndpoint, startReceiver, type Receiver, type Received, type RegisteredEndpoint } from '../support/receiver.ts';
import { GONE_REASON } from '../../src/webhooks/deliver.ts';
import { MEMBER_DISABLED_REASON, TEST_EVENTS_PER_MINUTE_MAX } from '../../src/webhooks/endpoints.ts';
import { createSecretBox } from '../../src/webhooks/secrets.ts';

let service: TestService;
let receiver: Receiver;
let member: string;
let other: string;
let origin: string;

before(async () => {
  service = await startTestService({ WORKERS: '1', WEBHOOK_TIMEOUT_MS: '1000' });
  receiver = await startReceiver();
  origin = new URL(receiver.url).origin;
  member = await token(service.url, { scope: 'member' });
  other = await token(service.url, { ...DEMO_2, scope: 'member' });
});
after(async () => {
  await service.stop();
  await receiver.close();
});
beforeEach(() => {
  receiver.answer = () => ({ status: 200 });
});

const call = (method: string, path: string, body?: unknown, accessToken = member) => fetch(`${service.url}/v2/webhook-endpoints${path}`, {
  method,
  headers: { ...bearer(accessToken), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});
const register = (path: string, eventTypes?: string[]) => registerEndpoint(service.url, member, `${origin}${path}`, eventTypes);
const remove = (id: string) => call('DELETE', `/${id}`);
const sendTest = async (id: string) => {
  const response = await call('POST', `/${id}/test`);
  assert.equal(response.status, 202);
  return json<{ deliveryId: string; eventId: string }>(response);
};
const arrived = (eventId: string, count = 1) => eventually(async () => receiver.received.filter((r) => r.headers['webhook-id'] === eventId), (r) => r.length >= count);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function delivery(deliveryId: string) {
  const { rows } = await service.db.query<{ status: string; attempts: number; attempted: number }>(
    `SELECT status, attempts, (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.delivery_id) AS attempted
       FROM webhook_deliveries d WHERE delivery_id = $1`,
    [deliveryId],
  );
  return rows[0];
}

/** The request with only one of its signatures (to show which secret made which). */
const withSignature = (r: Received, signature: string) => ({ ...r.headers, 'webhook-signature': signature });

describe('update', () => {
  test('url and eventTypes change; what is left out stays; the secret still signs', async () => {
    const endpoint = await register('/before', ['payout.status_changed']);
    try {
      const patched = await call('PATCH', `/${endpoint.webhookEndpointId}`, { url: `${origin}/after` });
      assert.equal(patched.status, 200);
      const view = await json(patched);
      assert.equal(view['url'], `${origin}/after`);
      assert.deepEqual(view['eventTypes'], ['payout.status_changed']);
      assert.ok(!('secret' in view));
      const typed = await json(await call('PATCH', `/${endpoint.webhookEndpointId}`, { eventTypes: ['settlement.status_changed', 'payout.status_changed'] }));
      assert.deepEqual(typed, { ...view, eventTypes: ['settlement.status_changed', 'payout.status_changed'] });
      assert.deepEqual(await json(await call('GET', `/${endpoint.webhookEndpointId}`)), typed);
      const { eventId } = await sendTest(endpoint.webhookEndpointId);
      const [got] = await arrived(eventId);
      assert.equal(got!.path, '/after');
      assert.doesNotThrow(() => new Webhook(endpoint.secret).verify(got!.body, got!.headers));
    } finally {
      await remove(endpoint.webhookEndpointId);
    }
  });

  test('refusals: an empty patch, the URL policy, bad eventTypes, unknown fields are 400 naming the field; nothing changes', async () => {
    const endpoint = await register('/kept');
    const id = endpoint.webhookEndpointId;
    try {
      const before = await json(await call('GET', `/${id}`));
      await expectError(await call('PATCH', `/${id}`, {}), 400, 'VALIDATION_ERROR', /^body: /);
      await expectError(await call('PATCH', `/${id}`, { url: 'ftp://hooks.example.com/a' }), 400, 'VALIDATION_ERROR', /^url: must use https$/);
      await expectError(await call('PATCH', `/${id}`, { url: 'http://hooks.example.com/a' }), 400, 'VALIDATION_ERROR', /^url: must use https/);
      await expectError(await call('PATCH', `/${id}`, { url: '' }), 400, 'VALIDATION_ERROR', /^url/);
      await expectError(await call('PATCH', `/${id}`, { url: `https://a.example.com/${'x'.repeat(2048)}` }), 400, 'VALIDATION_ERROR', /^url/);
      await expectError(await call('PATCH', `/${id}`, { eventTypes: [] }), 400, 'VALIDATION_ERROR', /^eventTypes/);
      await expectError(await call('PATCH', `/${id}`, { eventTypes: ['webhook.test'] }), 400, 'VALIDATION_ERROR', /^eventTypes/);
      await expectError(await call('PATCH', `/${id}`, { url: `${origin}/x`, secret: 'mine' }), 400, 'VALIDATION_ERROR', /^secret: is not a known property$/);
      await expectError(await call('PATCH', `/${id}`, { status: 'ENABLED' }), 400, 'VALIDATION_ERROR', /^status: is not a known property$/);
      assert.deepEqual(await json(await call('GET', `/${id}`)), before);
    } finally {
      await remove(id);
    }
    await expectError(await call('PATCH', `/${id}`, { url: `${origin}/x` }), 404, 'NOT_FOUND', /webhookEndpointId/);
    await expectError(await call('PATCH', '/not-a-uuid', { url: `${origin}/x` }), 404, 'NOT_FOUND');
  });

  test('a delivery still pending (waiting for its retry) goes to the new URL', async () => {
    receiver.answer = (r) => ({ status: r.path === '/broken' ? 503 : 200 });
    const endpoint = await register('/broken');
    try {
      const { deliveryId, eventId } = await sendTest(endpoint.webhookEndpointId);
      await arrived(eventId);
      assert.deepEqual(await eventually(() => delivery(deliveryId), (d) => d?.attempts === 1), { status: 'PENDING', attempts: 1, attempted: 1 });
      assert.equal((await call('PATCH', `/${endpoint.webhookEndpointId}`, { url: `${origin}/fixed` })).status, 200);
      // the retry is about five seconds out: run it now
      await service.db.query(`UPDATE graphile_worker._private_jobs SET run_at = now() WHERE payload->>'deliveryId' = $1`, [deliveryId]);
      const got = await arrived(eventId, 2);
      assert.deepEqual(got.map((r) => r.path), ['/broken', '/fixed']);
      assert.deepEqual(await eventually(() => delivery(deliveryId), (d) => d?.status === 'SUCCEEDED'), { status: 'SUCCEEDED', attempts: 2, attempted: 2 });
    } finally {
      await remove(endpoint.webhookEndpointId);
    }
  });
});

describe('test events', () => {
  test('202 with the delivery; it arrives signed, as webhook.test, to that endpoint only, recorded with its attempt, and not in the events list', async () => {
    const endpoint = await register('/tested', ['settlement.status_changed']);
    const bystander = await register('/bystander');
    try {
      const { deliveryId, eventId } = await sendTest(endpoint.webhookEndpointId);
      const [got] = await arrived(eventId);
      assert.equal(got!.path, '/tested');
      const body = new Webhook(endpoint.secret).verify(got!.body, got!.headers) as { type: string; timestamp: string; data: Record<string, unknown> };
      assert.equal(body.type, 'webhook.test');
      assert.deepEqual(body.data, {
        webhookEndpointId: endpoint.webhookEndpointId, message: 'A test event you asked for; nothing else happened.', eventId, sequence: 1,
      });
      assert.match(got!.headers['webhook-signature']!, /^v1,[A-Za-z0-9+/=]+$/);
      assert.deepEqual(await eventually(() => delivery(deliveryId), (d) => d?.status === 'SUCCEEDED'), { status: 'SUCCEEDED', attempts: 1, attempted: 1 });
      const { rows } = await service.db.query('SELECT response_status AS "responseStatus" FROM webhook_attempts WHERE delivery_id = $1', [deliveryId]);
      assert.deepEqual(rows, [{ responseStatus: 200 }]);
      await sleep(300);
      assert.equal(receiver.received.filter((r) => r.path === '/bystander').length, 0, 'another endpoint of the member gets nothing');
      const events = await json<{ events: Array<{ eventId: string }> }>(await fetch(`${service.url}/v2/events?limit=100`, { headers: bearer(member) }));
      assert.ok(!events.events.some((e) => e.eventId === eventId), 'not in the events list');
      await expectError(await fetch(`${service.url}/v2/events?after=${eventId}`, { headers: bearer(member) }), 400, 'VALIDATION_ERROR');
    } finally {
      await remove(endpoint.webhookEndpointId);
      await remove(bystander.webhookEndpointId);
    }
  });

  test(`at most ${TEST_EVENTS_PER_MINUTE_MAX} a minute per endpoint: then 429 RATE_LIMITED with Retry-After; the next minute, again`, async () => {
    const endpoint = await register('/limited');
    const neighbour = await register('/neighbour');
    try {
      const sent = await Promise.all(Array.from({ length: TEST_EVENTS_PER_MINUTE_MAX + 3 }, () => call('POST', `/${endpoint.webhookEndpointId}/test`)));
      assert.deepEqual(sent.map((r) => r.status).sort(), [...Array(TEST_EVENTS_PER_MINUTE_MAX).fill(202), 429, 429, 429]);
      const refused = sent.find((r) => r.status === 429)!;
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      await expectError(refused, 429, 'RATE_LIMITED', /at most 5 test events a minute per endpoint/);
      const { rows } = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_endpoint_id = $1', [endpoint.webhookEndpointId]);
      assert.equal(rows[0]!.n, TEST_EVENTS_PER_MINUTE_MAX);
      // the bound is per endpoint
      await sendTest(neighbour.webhookEndpointId);
      // a minute later (the window moved back rather than waited for)
      await service.db.query(`UPDATE webhook_endpoints SET test_window_start = now() - interval '61 seconds' WHERE webhook_endpoint_id = $1`, [endpoint.webhookEndpointId]);
      await sendTest(endpoint.webhookEndpointId);
    } finally {
      await remove(endpoint.webhookEndpointId);
      await remove(neighbour.webhookEndpointId);
    }
  });

  test('a disabled endpoint is 409 INVALID_STATE; an unknown, deleted or not-a-uuid one is 404', async () => {
    const endpoint = await register('/paused');
    assert.equal((await call('POST', `/${endpoint.webhookEndpointId}/disable`)).status, 200);
    await expectError(await call('POST', `/${endpoint.webhookEndpointId}/test`), 409, 'INVALID_STATE', /^status: DISABLED/);
    await remove(endpoint.webhookEndpointId);
    await expectError(await call('POST', `/${endpoint.webhookEndpointId}/test`), 404, 'NOT_FOUND', /webhookEndpointId/);
    await expectError(await call('POST', '/0b8f6a52-3c1d-4e9f-8a7b-6c5d4e3f2a1b/test'), 404, 'NOT_FOUND');
    await expectError(await call('POST', '/not-a-uuid/test'), 404, 'NOT_FOUND');
  });
});

describe('secret rotation', () => {
  test('during the overlap every delivery carries both signatures, newest first, each verifying alone; after it, only the new one', async () => {
    const endpoint = await register('/rotating');
    const id = endpoint.webhookEndpointId;
    try {
      const { rows: [sealedBefore] } = await service.db.query<{ s: string }>('SELECT secret_sealed AS s FROM webhook_endpoints WHERE webhook_endpoint_id = $1', [id]);
      const started = Date.now();
      const response = await call('POST', `/${id}/rotate-secret`, { expiresInSeconds: 3600 });
      assert.equal(response.status, 200);
      const rotated = await json(response);
      const secret = rotated['secret'] as string;
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.notEqual(secret, endpoint.secret);
      const expiresMs = Date.parse(rotated['previousSecretExpiresAt'] as string) - started;
      assert.ok(expiresMs > 3_590_000 && expiresMs < 3_610_000, `overlap ${expiresMs} ms`);
      const { secret: _s, previousSecretExpiresAt: _p, ...view } = rotated;
      assert.deepEqual(await json(await call('GET', `/${id}`)), view, 'the endpoint is otherwise unchanged, and GET shows no secret');
      // sealed at rest: the old sealed value kept for the overlap, the new secret not readable in the row
      const { rows: [stored] } = await service.db.query<{ current: string; previous: string }>(
        'SELECT secret_sealed AS current, previous_secret_sealed AS previous FROM webhook_endpoints WHERE webhook_endpoint_id = $1', [id]);
      assert.equal(stored!.previous, sealedBefore!.s);
      assert.ok(!stored!.current.includes(secret.slice(6)) && stored!.current.startsWith('v1.'));

      const during = (await arrived((await sendTest(id)).eventId))[0]!;
      const signatures = during.headers['webhook-signature']!.split(' ');
      assert.equal(signatures.length, 2);
      const fresh = new Webhook(secret);
      const old = new Webhook(endpoint.secret);
      assert.doesNotThrow(() => fresh.verify(during.body, during.headers), 'the new secret alone verifies');
      assert.doesNotThrow(() => old.verify(during.body, during.headers), 'the old secret alone verifies');
      assert.doesNotThrow(() => fresh.verify(during.body, withSignature(during, signatures[0]!)), 'the first signature is the new secret\'s');
      assert.throws(() => old.verify(during.body, withSignature(during, signatures[0]!)));
      assert.doesNotThrow(() => old.verify(during.body, withSignature(during, signatures[1]!)), 'the second is the old secret\'s');

      // the overlap over (moved back rather than waited for)
      await service.db.query(`UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE webhook_endpoint_id = $1`, [id]);
      const later = (await arrived((await sendTest(id)).eventId))[0]!;
      assert.equal(later.headers['webhook-signature']!.split(' ').length, 1);
      assert.doesNotThrow(() => fresh.verify(later.body, later.headers));
      assert.throws(() => old.verify(later.body, later.headers), 'the old secret no longer verifies');
    } finally {
      await remove(id);
    }
  });

  test('expiresInSeconds 0 stops the old secret at once; no body means 24 h; a second rotation drops the oldest secret', async () => {
    const endpoint = await register('/rotate-now');
    const id = endpoint.webhookEndpointId;
    try {
      const now = await json(await call('POST', `/${id}/rotate-secret`, { expiresInSeconds: 0 }));
      assert.equal(now['previousSecretExpiresAt'], null);
      const got = (await arrived((await sendTest(id)).eventId))[0]!;
      assert.equal(got.headers['webhook-signature']!.split(' ').length, 1);
      assert.doesNotThrow(() => new Webhook(now['secret'] as string).verify(got.body, got.headers));
      assert.throws(() => new Webhook(endpoint.secret).verify(got.body, got.headers));

      const started = Date.now();
      const bodiless = await call('POST', `/${id}/rotate-secret`);
      assert.equal(bodiless.status, 200);
      const second = await json(bodiless);
      const overlapMs = Date.parse(second['previousSecretExpiresAt'] as string) - started;
      assert.ok(overlapMs > 86_390_000 && overlapMs < 86_410_000, `overlap ${overlapMs} ms`);
      const third = await json(await call('POST', `/${id}/rotate-secret`, { expiresInSeconds: 60 }));
      const last = (await arrived((await sendTest(id)).eventId))[0]!;
      assert.equal(last.headers['webhook-signature']!.split(' ').length, 2);
      assert.doesNotThrow(() => new Webhook(third['secret'] as string).verify(last.body, last.headers));
      assert.doesNotThrow(() => new Webhook(second['secret'] as string).verify(last.body, last.headers));
      assert.throws(() => new Webhook(now['secret'] as string).verify(last.body, last.headers), 'two rotations back no longer signs');
    } finally {
      await remove(id);
    }
  });

  test('an endpoint whose secret was sealed under another key is recovered by a rotation: the new secret alone signs', async () => {
    const endpoint = await register('/resealed');
    const id = endpoint.webhookEndpointId;
    try {
      const foreign = createSecretBox(Buffer.alloc(32, 7)).seal(endpoint.secret);
      await service.db.query('UPDATE webhook_endpoints SET secret_sealed = $2 WHERE webhook_endpoint_id = $1', [id, foreign]);
      const rotated = await json(await call('POST', `/${id}/rotate-secret`));
      assert.notEqual(rotated['previousSecretExpiresAt'], null);
      const got = (await arrived((await sendTest(id)).eventId))[0]!;
      assert.equal(got.headers['webhook-signature']!.split(' ').length, 1, 'the unreadable old secret signs nothing');
      assert.doesNotThrow(() => new Webhook(rotated['secret'] as string).verify(got.body, got.headers));
    } finally {
      await remove(id);
    }
  });

  test('refusals: expiresInSeconds out of bounds or not an integer, unknown fields are 400; deleted or unknown is 404', async () => {
    const endpoint = await register('/rotate-refused');
    const id = endpoint.webhookEndpointId;
    for (const expiresInSeconds of [-1, 604_801, 1.5, '60', null]) {
      await expectError(await call('POST', `/${id}/rotate-secret`, { expiresInSeconds }), 400, 'VALIDATION_ERROR', /^expiresInSeconds: /);
    }
    await expectError(await call('POST', `/${id}/rotate-secret`, { secret: 'whsec_mine' }), 400, 'VALIDATION_ERROR', /^secret: is not a known property$/);
    const { rows } = await service.db.query('SELECT previous_secret_sealed AS p FROM webhook_endpoints WHERE webhook_endpoint_id = $1', [id]);
    assert.deepEqual(rows, [{ p: null }], 'nothing rotated');
    await remove(id);
    await expectError(await call('POST', `/${id}/rotate-secret`), 404, 'NOT_FOUND', /webhookEndpointId/);
    await expectError(await call('POST', '/not-a-uuid/rotate-secret'), 404, 'NOT_FOUND');
  });
});

describe('disable and enable', () => {
  test('disable pauses (idempotent), enable resumes (idempotent) and closes the circuit', async () => {
    const endpoint = await register('/switch');
    const id = endpoint.webhookEndpointId;
    try {
      const disabled = await call('POST', `/${id}/disable`);
      assert.equal(disabled.status, 200);
      const view = await json(disabled);
      assert.deepEqual([view['status'], view['statusReason']], ['DISABLED', MEMBER_DISABLED_REASON]);
      assert.deepEqual(await json(await call('POST', `/${id}/disable`)), view);
      assert.deepEqual(await json(await call('GET', `/${id}`)), view);
      await service.db.query(`UPDATE webhook_endpoints SET consecutive_failures = 7, circuit_open_until = now() + interval '1 hour' WHERE webhook_endpoint_id = $1`, [id]);
      const enabled = await json(await call('POST', `/${id}/enable`));
      assert.deepEqual([enabled['status'], enabled['statusReason']], ['ENABLED', null]);
      const { rows } = await service.db.query('SELECT consecutive_failures AS f, circuit_open_until AS u FROM webhook_endpoints WHERE webhook_endpoint_id = $1', [id]);
      assert.deepEqual(rows, [{ f: 0, u: null }]);
      // enabling an enabled endpoint changes nothing, its circuit included
      await service.db.query('UPDATE webhook_endpoints SET consecutive_failures = 2 WHERE webhook_endpoint_id = $1', [id]);
      assert.deepEqual(await json(await call('POST', `/${id}/enable`)), enabled);
      const { rows: kept } = await service.db.query('SELECT consecutive_failures AS f FROM webhook_endpoints WHERE webhook_endpoint_id = $1', [id]);
      assert.deepEqual(kept, [{ f: 2 }]);
    } finally {
      await remove(id);
    }
    await expectError(await call('POST', `/${id}/enable`), 404, 'NOT_FOUND', /webhookEndpointId/);
    await expectError(await call('POST', `/${id}/disable`), 404, 'NOT_FOUND', /webhookEndpointId/);
    await expectError(await call('POST', '/not-a-uuid/enable'), 404, 'NOT_FOUND');
  });

  test('after a 410 the member enables the endpoint: deliveries flow again, the failed one is not resent', async () => {
    const payouts = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
    const endpoint = await register('/gone', ['payout.status_changed']);
    const id = endpoint.webhookEndpointId;
    try {
      receiver.answer = () => ({ status: 410 });
      const gone = await sendTest(id);
      await arrived(gone.eventId);
      await eventually(() => delivery(gone.deliveryId), (d) => d?.status === 'FAILED');
      const disabled = await json(await call('GET', `/${id}`));
      assert.deepEqual([disabled['status'], disabled['statusReason']], ['DISABLED', GONE_REASON]);
      receiver.answer = () => ({ status: 200 });
      assert.equal((await call('POST', `/${id}/enable`)).status, 200);
      const payoutId = (await payouts.created(payoutBody('MX_SPEI')))['payoutId'] as string;
      const got = await eventually(async () => receiver.received.filter((r) => r.path === '/gone' && r.body.includes(payoutId)), (r) => r.length >= 1);
      assert.doesNotThrow(() => new Webhook(endpoint.secret).verify(got[0]!.body, got[0]!.headers));
      const again = await sendTest(id);
      await arrived(again.eventId);
      assert.equal((await delivery(gone.deliveryId))?.status, 'FAILED', 'the delivery that failed stays failed');
      assert.equal(receiver.received.filter((r) => r.headers['webhook-id'] === gone.eventId).length, 1, 'and was not sent again');
    } finally {
      receiver.answer = () => ({ status: 200 });
      await remove(id);
    }
  });
});

describe('another member and other scopes', () => {
  test("another member's endpoint is 404 on every operation, and nothing changes; scope member is needed", async () => {
    const endpoint = await register('/mine');
    const id = endpoint.webhookEndpointId;
    try {
      const before = await json(await call('GET', `/${id}`));
      await expectError(await call('PATCH', `/${id}`, { url: `${origin}/theirs` }, other), 404, 'NOT_FOUND');
      await expectError(await call('POST', `/${id}/test`, undefined, other), 404, 'NOT_FOUND');
      await expectError(await call('POST', `/${id}/rotate-secret`, { expiresInSeconds: 0 }, other), 404, 'NOT_FOUND');
      await expectError(await call('POST', `/${id}/disable`, undefined, other), 404, 'NOT_FOUND');
      await expectError(await call('POST', `/${id}/enable`, undefined, other), 404, 'NOT_FOUND');
      assert.deepEqual(await json(await call('GET', `/${id}`)), before);
      const { rows } = await service.db.query('SELECT previous_secret_sealed AS p, test_window_count AS n FROM webhook_endpoints WHERE webhook_endpoint_id = $1', [id]);
      assert.deepEqual(rows, [{ p: null, n: 0 }]);
      const payoutsOnly = await token(service.url, { scope: 'payouts' });
      await expectError(await call('PATCH', `/${id}`, { url: `${origin}/x` }, payoutsOnly), 403, 'INSUFFICIENT_SCOPE');
      await expectError(await call('POST', `/${id}/test`, undefined, payoutsOnly), 403, 'INSUFFICIENT_SCOPE');
      await expectError(await call('POST', `/${id}/rotate-secret`, undefined, payoutsOnly), 403, 'INSUFFICIENT_SCOPE');
      await expectError(await call('POST', `/${id}/enable`, undefined, payoutsOnly), 403, 'INSUFFICIENT_SCOPE');
    } finally {
      await remove(id);
    }
  });
});
