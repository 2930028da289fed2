// The conventions of CONTRACT section 2 on every route: request ids, Error bodies for 404, 413,
// 415, malformed JSON and unknown properties, security headers, the rate limit and health probes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { bearer, json, requestToken, token, DEMO_2, expectError } from '../support/http.ts';

let service: TestService;
let memberToken: string;
before(async () => {
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '40' });
  memberToken = await token(service.url, { scope: 'member payouts' });
});
after(async () => {
  await service.stop();
});

const createClient = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`${service.url}/v2/oauth-clients`, { method: 'POST', headers: { ...bearer(memberToken), ...headers }, body });


async function clientCount(): Promise<number> {
  const { rows } = await service.db.query<{ n: string }>('SELECT count(*) AS n FROM oauth_clients');
  return Number(rows[0]!.n);
}

describe('X-Request-Id', () => {
  test('a valid client value is echoed', async () => {
    const response = await fetch(`${service.url}/healthz`, { headers: { 'x-request-id': 'req-123_ABC.x' } });
    assert.equal(response.headers.get('x-request-id'), 'req-123_ABC.x');
  });
  test('128 characters are echoed; 129 get a new id', async () => {
    const ok = 'a'.repeat(128);
    assert.equal((await fetch(`${service.url}/healthz`, { headers: { 'x-request-id': ok } })).headers.get('x-request-id'), ok);
    const long = 'a'.repeat(129);
    const replaced = (await fetch(`${service.url}/healthz`, { headers: { 'x-request-id': long } })).headers.get('x-request-id');
    assert.match(replaced ?? '', /^[0-9a-f-]{36}$/);
  });
  test('an unprintable value gets a new id', async () => {
    const replaced = (await fetch(`${service.url}/healthz`, { headers: { 'x-request-id': 'has space' } })).headers.get('x-request-id');
    assert.match(replaced ?? '', /^[0-9a-f-]{36}$/);
  });
  test('none sent: a new one on every response, errors included', async () => {
    const response = await fetch(`${service.url}/v2/purpose-codes`);
    assert.equal(response.status, 401);
    assert.match(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });
});

describe('Error bodies', () => {
  test('an unknown route is 404 NOT_FOUND', async () => {
    await expectError(await fetch(`${service.url}/v2/nothing-here`), 404, 'NOT_FOUND', /\/v2\/nothing-here/);
  });
  test('a long unknown path: the 404 names its first 200 characters, not the whole URL', async () => {
    const body = await expectError(await fetch(`${service.url}/v2/nothing-here/${'a'.repeat(10_000)}`), 404, 'NOT_FOUND');
    assert.equal(body['detail'], `route: GET /v2/nothing-here/${'a'.repeat(200 - '/v2/nothing-here/'.length)}...`);
  });
  test('a body over 64 KiB is 413 PAYLOAD_TOO_LARGE and changes nothing', async () => {
    const before = await clientCount();
    await expectError(await createClient(JSON.stringify({ name: 'x'.repeat(70 * 1024) })), 413, 'PAYLOAD_TOO_LARGE');
    assert.equal(await clientCount(), before);
  });
  test('a non-JSON body is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    await expectError(await createClient('name=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    await expectError(await createClient('hello', { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
  test('malformed JSON is 400 VALIDATION_ERROR', async () => {
    await expectError(await createClient('{"name": '), 400, 'VALIDATION_ERROR', /JSON/);
  });
  test('an unknown property is 400 VALIDATION_ERROR naming it, and changes nothing', async () => {
    const before = await clientCount();
    await expectError(await createClient(JSON.stringify({ name: 'x', colour: 'red' })), 400, 'VALIDATION_ERROR', /^colour: is not a known property$/);
    assert.equal(await clientCount(), before);
  });
  test('a wrong type is not coerced: 400 naming the field', async () => {
    await expectError(await createClient(JSON.stringify({ name: 42 })), 400, 'VALIDATION_ERROR', /^name: must be string$/);
  });
});

describe('security headers', () => {
  test('API answers forbid framing and sniffing and carry a strict CSP', async () => {
    const response = await fetch(`${service.url}/healthz`);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('content-security-policy'), "default-src 'none';frame-ancestors 'none'");
    assert.ok(response.headers.get('strict-transport-security'));
    assert.equal(response.headers.get('x-powered-by'), null);
  });
});

describe('health', () => {
  test('/healthz and /readyz answer {"status":"ok"}', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const response = await fetch(`${service.url}${path}`);
      assert.equal(response.status, 200);
      assert.deepEqual(await json(response), { status: 'ok' });
    }
  });
});

describe('query strings', () => {
  test('a route without query parameters refuses one: 400 naming it', async () => {
    const response = await fetch(`${service.url}/v2/purpose-codes?page=2`, { headers: bearer(memberToken) });
    await expectError(response, 400, 'VALIDATION_ERROR', /^page: is not a known property$/);
  });
});

describe('rate limit (40 per minute per client in this file)', () => {
  test('over the limit a client gets 429 RATE_LIMITED with Retry-After; another client is unaffected', async () => {
    const other = await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret, scope: 'payouts' });
    let limited: Response | undefined;
    for (let i = 0; i < 60 && !limited; i++) {
      const response = await fetch(`${service.url}/v2/purpose-codes`, { headers: bearer(memberToken) });
      if (response.status === 429) limited = response;
      else assert.equal(response.status, 200);
    }
    assert.ok(limited, 'no 429 within 60 requests');
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    await expectError(limited, 429, 'RATE_LIMITED');
    assert.equal((await fetch(`${service.url}/v2/purpose-codes`, { headers: bearer(other) })).status, 200);
  });
  test('the token endpoint is limited per claimed client id and address too', async () => {
    let status = 200;
    for (let i = 0; i < 60 && status !== 429; i++) {
      status = (await requestToken(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret, scope: 'payouts' })).status;
    }
    assert.equal(status, 429);
  });
});
