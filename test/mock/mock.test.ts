// MODE=mock: no database; the same authentication flow, validation and error bodies as the real
// service (checked side by side on a shared table of invalid requests); every example the
// OpenAPI document gives is answered, chosen with Prefer as Prism does; the caller's values echoed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { startTestService, type TestService } from '../support/service.ts';
import { bearer, expectError, json, requestToken, token } from '../support/http.ts';
import { payoutBody } from '../support/payouts.ts';

let real: TestService;
let mock: TestService;
before(async () => {
  [real, mock] = await Promise.all([startTestService({ WORKERS: '0', WEBHOOK_WORKERS: '0' }), startTestService({ MODE: 'mock' })]);
});
after(async () => {
  await Promise.all([real.stop(), mock.stop()]);
});

type Json = Record<string, unknown>;

test('mock mode keeps nothing: no database is started under DATA_DIR', async () => {
  assert.deepEqual(await fs.readdir(mock.dataDir), []);
  assert.equal((await fetch(`${mock.url}/readyz`)).status, 200);
});

describe('authentication', () => {
  test('any client id and secret get the scopes they ask for; the token works on the scope it carries', async () => {
    const response = await requestToken(mock.url, { clientId: 'my-test-client', secret: 'anything at all', scope: 'payouts member' });
    assert.equal(response.status, 200);
    const grant = await json(response);
    assert.equal(grant['token_type'], 'Bearer');
    assert.equal(grant['expires_in'], 300);
    assert.equal(grant['scope'], 'payouts member');
    const accessToken = grant['access_token'] as string;
    assert.equal((await fetch(`${mock.url}/v2/payouts`, { headers: bearer(accessToken) })).status, 200);
    await expectError(await fetch(`${mock.url}/v2/settlements`, { headers: bearer(accessToken) }), 403, 'INSUFFICIENT_SCOPE', /settlements/);
  });

  test('the token endpoint refuses what the real one refuses, in the RFC 6749 shape', async () => {
    for (const [options, error] of [
      [{ scope: 'payouts', grantType: 'password' }, 'unsupported_grant_type'],
      [{ scope: 'payouts admin' }, 'invalid_scope'],
      [{ scope: '' }, 'invalid_request'],
    ] as const) {
      const [fromMock, fromReal] = await Promise.all([requestToken(mock.url, options), requestToken(real.url, options)]);
      assert.equal(fromMock.status, fromReal.status, JSON.stringify(options));
      assert.equal((await json(fromMock))['error'], error);
      assert.equal((await json(fromReal))['error'], error);
    }
  });
});

/** Requests the real service refuses before any business rule: the mock must refuse them identically. */
const INVALID: Array<{ name: string; method: string; path: string; body?: unknown; headers?: Record<string, string>; scope?: string; noToken?: boolean }> = [
  { name: 'no token', method: 'GET', path: '/v2/payouts', noToken: true },
  { name: 'a forged token', method: 'GET', path: '/v2/payouts', headers: { authorization: 'Bearer abc.def.ghi' } },
  { name: 'the wrong scope', method: 'GET', path: '/v2/settlements', scope: 'payouts' },
  { name: 'payout without sender', method: 'POST', path: '/v2/payouts', body: { ...payoutBody('MX_SPEI'), sender: undefined } },
  { name: 'payout amount as text', method: 'POST', path: '/v2/payouts', body: payoutBody('MX_SPEI', { payoutAmt: '100' }) },
  { name: 'payout with an unknown property', method: 'POST', path: '/v2/payouts', body: payoutBody('MX_SPEI', { color: 'red' }) },
  { name: 'payout with a negative amount', method: 'POST', path: '/v2/payouts', body: payoutBody('MX_SPEI', { payoutAmt: -5 }) },
  { name: 'a body that is not JSON', method: 'POST', path: '/v2/payouts', body: 'payoutAmt=5', headers: { 'content-type': 'text/plain' } },
  { name: 'malformed JSON', method: 'POST', path: '/v2/payouts', body: '{"payoutAmt": ', headers: { 'content-type': 'application/json' } },
  { name: 'list page size over 100', method: 'GET', path: '/v2/payouts?size=101' },
  { name: 'list with an unknown filter', method: 'GET', path: '/v2/payouts?colour=red' },
  { name: 'list with a status out of its enum', method: 'GET', path: '/v2/payouts?payoutStatus=DONE' },
  { name: 'cancel without a reason', method: 'POST', path: '/v2/payouts/0b8f8a4e-6f1d-4c1a-9d43-2a7c5e9b1f20/cancel', body: {} },
  { name: 'settlement amount with too many digits', method: 'POST', path: '/v2/settlements', body: { destinationMemberId: 'PARTNER_MX', settlementAmt: 10_000_000_000_000, rateId: '0b8f8a4e-6f1d-4c1a-9d43-2a7c5e9b1f20', executionInterval: 'IMMEDIATE' } },
  { name: 'settlement with an unknown interval', method: 'POST', path: '/v2/settlements', body: { destinationMemberId: 'PARTNER_MX', settlementAmt: 100, rateId: '0b8f8a4e-6f1d-4c1a-9d43-2a7c5e9b1f20', executionInterval: 'SOMEDAY' } },
  { name: 'rate without destinationMemberId', method: 'GET', path: '/v2/settlement-rates' },
  { name: 'settlement list sorted by an unknown field', method: 'GET', path: '/v2/settlements?sortField=colour' },
  { name: 'events with limit 0', method: 'GET', path: '/v2/events?limit=0', scope: 'member' },
  { name: 'webhook endpoint without url', method: 'POST', path: '/v2/webhook-endpoints', body: {}, scope: 'member' },
  { name: 'unknown route', method: 'GET', path: '/v2/nothing-here' },
];

test('the mock refuses exactly the requests the real service refuses, with the same status, code and detail', async () => {
  const tokens = new Map<string, [string, string]>();
  const tokenPair = async (scope: string) => {
    if (!tokens.has(scope)) tokens.set(scope, [await token(real.url, { scope }), await token(mock.url, { scope })]);
    return tokens.get(scope)!;
  };
  for (const request of INVALID) {
    const [realToken, mockToken] = await tokenPair(request.scope ?? 'payouts settlements member');
    const send = (baseUrl: string, accessToken: string) => fetch(`${baseUrl}${request.path}`, {
      method: request.method,
      headers: {
        ...(request.noToken ? {} : bearer(accessToken)),
        ...(request.body !== undefined && typeof request.body !== 'string' ? { 'content-type': 'application/json' } : {}),
        ...request.headers,
      },
      ...(request.body === undefined ? {} : { body: typeof request.body === 'string' ? request.body : JSON.stringify(request.body) }),
    });
    const [fromReal, fromMock] = await Promise.all([send(real.url, realToken), send(mock.url, mockToken)]);
    assert.ok(fromReal.status >= 400, `${request.name}: the real service refuses it`);
    assert.equal(fromMock.status, fromReal.status, request.name);
    assert.deepEqual(await json(fromMock), await json(fromReal), request.name);
    assert.equal(fromMock.headers.get('www-authenticate'), fromReal.headers.get('www-authenticate'), request.name);
  }
});

describe('answers', () => {
  let accessToken: string;
  before(async () => {
    accessToken = await token(mock.url, { scope: 'payouts settlements member' });
  });
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => fetch(`${mock.url}${path}`, {
    method, headers: { ...bearer(accessToken), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

  test("a created payout echoes the request's own values, with a Location", async () => {
    const body = payoutBody('MX_SPEI', { payoutAmt: 321.09, sourceMemberPayoutId: 'my-own-id-42' });
    const response = await call('POST', '/v2/payouts', body);
    assert.equal(response.status, 201);
    const created = await json(response);
    assert.equal(created['payoutAmt'], 321.09);
    assert.equal(created['sourceMemberPayoutId'], 'my-own-id-42');
    assert.equal(created['destinationCcy'], 'MXN');
    assert.equal(created['beneficiaryName'], 'Maria Lopez');
    assert.equal(response.headers.get('location'), `/v2/payouts/${created['payoutId']}`);
  });

  test("the path's id comes back in the record", async () => {
    const id = '11111111-2222-4333-8444-555555555555';
    assert.equal((await json(await call('GET', `/v2/payouts/${id}`)))['payoutId'], id);
    assert.equal((await json(await call('GET', `/v2/settlements/${id}`)))['settlementId'], id);
  });

  test('Prefer: example= chooses a named example; Prefer: code= an error example; unknown ones are 400', async () => {
    const id = '11111111-2222-4333-8444-555555555555';
    const pending = await call('POST', `/v2/payouts/${id}/process`, undefined, { prefer: 'example=cashPickupPending' });
    assert.equal(pending.status, 200);
    assert.deepEqual(await json(pending), { payoutStatus: 'PNDG', cashoutStatus: 'READY_FOR_PICKUP' });
    assert.deepEqual(await json(await call('POST', `/v2/payouts/${id}/process`)), { payoutStatus: 'PRCD', cashoutStatus: 'PAID' });
    await expectError(await call('POST', '/v2/payouts', payoutBody('MX_SPEI'), { prefer: 'code=422' }), 422, 'INSUFFICIENT_PREFUND');
    await expectError(await call('GET', `/v2/payouts/${id}`, undefined, { prefer: 'code=418' }), 400, 'VALIDATION_ERROR', /^Prefer: code=418 is not one of /);
    await expectError(await call('POST', `/v2/payouts/${id}/process`, undefined, { prefer: 'example=nope' }), 400, 'VALIDATION_ERROR', /^Prefer: example=nope is not one of processed, cashPickupPending$/);
  });

  test('every example of the payout and settlement areas in the OpenAPI document is answered', async () => {
    const doc = await json<{ paths: Record<string, Record<string, {
      tags?: string[]; security?: unknown; requestBody?: { content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> ; schema?: { examples?: unknown[] } }> };
      responses: Record<string, { content?: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> }>;
    }>> }>(await fetch(`${mock.url}/openapi.json`));
    const QUERY: Record<string, string> = { '/v2/settlement-rates': '?destinationMemberId=PARTNER_MX', '/v2/payout-limits': '?countryCode=MX' };
    let answered = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!operation.security || !operation.tags?.some((t) => ['Payouts', 'Settlements'].includes(t))) continue;
        const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'payoutProviderId' ? 'MX_SPEI' : '11111111-2222-4333-8444-555555555555')) + (QUERY[path] ?? '');
        const media = operation.requestBody?.content['application/json'];
        const body = media ? (media.example ?? Object.values(media.examples ?? {})[0]?.value ?? media.schema?.examples?.[0]) : undefined;
        for (const [status, response] of Object.entries(operation.responses)) {
          if (status === '204') continue;
          const content = response.content?.['application/json'];
          const examples: Record<string, unknown> = content?.examples
            ? Object.fromEntries(Object.entries(content.examples).map(([n, e]) => [n, e.value]))
            : content?.example !== undefined ? { example1: content.example } : {};
          assert.ok(Object.keys(examples).length > 0 || Number(status) < 300, `${method} ${path} ${status} has an example`);
          for (const [name, example] of Object.entries(examples)) {
            const prefer = `code=${status}, example=${name}`;
            const answer = await call(method.toUpperCase(), url, body, { prefer });
            assert.equal(answer.status, Number(status), `${method} ${path} ${prefer}: ${JSON.stringify(body)}`);
            if (Number(status) >= 400) assert.deepEqual(await json(answer), example, `${method} ${path} ${prefer}`);
            else await answer.arrayBuffer();
            answered += 1;
          }
        }
      }
    }
    assert.ok(answered > 60, `answered ${answered} examples`);
  });
});
