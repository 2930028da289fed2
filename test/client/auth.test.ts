// The client's OAuth 2.0 client credentials: one token request for many calls, a new token before
// the cached one has less than 30 s left (by an injected clock), one new token and one resend on a
// 401, and a refused token request as a typed ApiError.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, REFRESH_MARGIN_MS } from '../../client/src/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO, basic } from '../support/http.ts';
import { demoClient, newPayout, recordingFetch } from '../support/client.ts';

let service: TestService;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
});
after(async () => {
  await service.stop();
});

const TOKEN = '/oauth2/token';
const CONTEXT = '/v2/settlement-context';

test('the token request: HTTP Basic with the client id and secret, form body grant_type=client_credentials and the scope', async () => {
  const seen: Array<{ authorization: string | null; contentType: string | null; body: string }> = [];
  const client = demoClient(service.url, {
    scope: 'settlements',
    fetch: async (request) => {
      if (new URL(request.url).pathname === TOKEN) {
        seen.push({ authorization: request.headers.get('authorization'), contentType: request.headers.get('content-type'), body: await request.clone().text() });
      }
      return fetch(request);
    },
  });
  await client.GET(CONTEXT);
  assert.deepEqual(seen, [{
    authorization: basic(DEMO.clientId, DEMO.secret),
    contentType: 'application/x-www-form-urlencoded',
    body: 'grant_type=client_credentials&scope=settlements',
  }]);
});

test('one token serves many calls; with less than 30 s left a new one is fetched before the next call', async () => {
  let now = Date.now();
  const recorder = recordingFetch();
  const client = demoClient(service.url, { fetch: recorder.fetch, now: () => now });

  for (let i = 0; i < 3; i++) assert.ok((await client.GET(CONTEXT)).data);
  assert.equal(recorder.count(TOKEN), 1);
  const first = recorder.sent[0]!.accessToken!;

  // the token lasts 300 s: at 269 s 31 s are left, still enough
  now += 300_000 - REFRESH_MARGIN_MS - 1_000;
  await client.GET(CONTEXT);
  assert.equal(recorder.count(TOKEN), 1);

  // at 271 s only 29 s are left: the next call first gets a new token, then uses it
  now += 2_000;
  await client.GET(CONTEXT);
  assert.equal(recorder.count(TOKEN), 2);
  const last = recorder.sent.slice(-2);
  assert.deepEqual(last.map((s) => [s.path, s.status]), [[TOKEN, 200], [CONTEXT, 200]], 'the token came before the call');
  const second = last[0]!.accessToken!;
  assert.notEqual(second, first);
  assert.equal(last[1]!.authorization, `Bearer ${second}`);
  assert.ok(recorder.sent.every((s) => s.status !== 401), 'no call was refused on the way');

  // and the new token is cached in turn
  await client.GET(CONTEXT);
  assert.equal(recorder.count(TOKEN), 2);
});

test('concurrent first calls share one token request', async () => {
  const recorder = recordingFetch();
  const client = demoClient(service.url, { fetch: recorder.fetch });
  await Promise.all(Array.from({ length: 5 }, () => client.GET(CONTEXT)));
  assert.equal(recorder.count(TOKEN), 1);
  assert.equal(recorder.count(CONTEXT), 5);
});

test('a 401 answer: one new token and the same request once more, its body included', async () => {
  const recorder = recordingFetch();
  const client = demoClient(service.url, { fetch: recorder.fetch });
  await client.GET(CONTEXT);
  assert.equal(recorder.count(TOKEN), 1);

  // the service stops accepting the cached token (as after a key rotation): the next sending has it refused
  recorder.interceptNext('/v2/payouts', (request, send) => {
    request.headers.set('authorization', 'Bearer no.longer.valid');
    return send(request);
  });
  const body = newPayout();
  const created = await client.createPayout(body);
  assert.equal(created.sourceMemberPayoutId, body.sourceMemberPayoutId);
  const tail = recorder.sent.slice(-3).map((s) => [s.method, s.path, s.status]);
  assert.deepEqual(tail, [['POST', '/v2/payouts', 401], ['POST', TOKEN, 200], ['POST', '/v2/payouts', 201]]);
  assert.equal(recorder.sent.at(-1)!.authorization, `Bearer ${recorder.sent.at(-2)!.accessToken}`);
});

test('a 401 on the resend too is an ApiError UNAUTHORIZED (one retry only)', async () => {
  const recorder = recordingFetch();
  const client = createRefusingClient(recorder);
  await assert.rejects(client.GET(CONTEXT), (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 401);
    assert.equal(error.code, 'UNAUTHORIZED');
    assert.ok(error.requestId);
    return true;
  });
  assert.deepEqual(recorder.sent.map((s) => [s.path, s.status]), [[TOKEN, 200], [CONTEXT, 401], [TOKEN, 200], [CONTEXT, 401]]);
});

test('a refused token request is an ApiError with the OAuth error code', async () => {
  const client = demoClient(service.url, { clientSecret: 'not-the-secret' });
  await assert.rejects(client.GET(CONTEXT), (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 401);
    assert.equal(error.code, 'invalid_client');
    assert.ok(error.detail.length > 0);
    return true;
  });
  const narrow = demoClient(service.url, { scope: 'admin' });
  await assert.rejects(narrow.GET(CONTEXT), (error: unknown) => error instanceof ApiError && error.status === 400 && error.code === 'invalid_scope');
});

/** A client whose every API request carries a token the service refuses. */
function createRefusingClient(recorder: ReturnType<typeof recordingFetch>) {
  return demoClient(service.url, {
    fetch: async (request) => {
      if (new URL(request.url).pathname !== TOKEN) request.headers.set('authorization', 'Bearer forged');
      return recorder.fetch(request);
    },
  });
}
