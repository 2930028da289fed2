// Retries and time limits. Idempotent requests are sent again after a 429 or 503, after the
// Retry-After the answer asks for, within bounds; other requests are sent once and their 429 or 503
// reaches the caller with `retryAfterMs`. Creations say whether their answer is a replay. A
// request that gets no complete answer in time is a RequestTimeoutError, whether the headers or the
// body are late. The 503s here are put in front of the real service at the fetch (as a proxy or
// a database outage would answer); the 429s are the service's own rate limit.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { ApiError, isIdempotent, RequestTimeoutError, type PayoutClient } from '../../client/src/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { demoClient, dropAfterSending, newPayout, recordingFetch } from '../support/client.ts';

let service: TestService;
let client: PayoutClient;
const recorder = recordingFetch();

before(async () => {
  service = await startTestService({ WORKERS: '0' });
  client = demoClient(service.url, { fetch: recorder.fetch, retry: { baseDelayMs: 10, maxDelayMs: 2000, maxTotalDelayMs: 3000 } });
});
after(async () => {
  await service.stop();
});

const unavailable = (retryAfter: string | null) => async () =>
  new Response(JSON.stringify({ code: 'SERVICE_UNAVAILABLE', message: 'The service is not available.', detail: 'retry shortly' }), {
    status: 503,
    headers: { 'content-type': 'application/json', ...(retryAfter === null ? {} : { 'retry-after': retryAfter }) },
  });

test('which requests count as idempotent: reads, payout creation, process, a keyed settlement creation, the token request', () => {
  const request = (method: string, path: string, headers: Record<string, string> = {}) => new Request(`http://api.test/base${path}`, { method, headers });
  const idempotent = [
    request('GET', '/v2/payouts'), request('HEAD', '/v2/payouts/p1'), request('POST', '/v2/payouts'), request('POST', '/v2/payouts/p1/process'),
    request('POST', '/v2/settlements', { 'idempotency-key': 'k1' }), request('POST', '/oauth2/token'),
  ];
  const sentOnce = [
    request('POST', '/v2/payouts/p1/cancel'), request('POST', '/v2/settlements'), request('POST', '/v2/settlements/s1/cancel', { 'idempotency-key': 'k1' }),
    request('POST', '/v2/webhook-endpoints', { 'idempotency-key': 'k2' }), request('DELETE', '/v2/webhook-endpoints/w1'), request('POST', '/v2/sandbox/prefund'),
  ];
  assert.deepEqual(idempotent.map(isIdempotent), idempotent.map(() => true));
  assert.deepEqual(sentOnce.map(isIdempotent), sentOnce.map(() => false));
});

const sentTo = (path: string, method: string) => recorder.sent.filter((s) => s.path === path && s.method === method);

test('a GET answered 503 with Retry-After: 1 is sent again after a second and gets its answer', async () => {
  const { payout } = await client.payouts.create(newPayout());
  const path = `/v2/payouts/${payout.payoutId}`;
  recorder.interceptNext(path, unavailable('1'));
  const startedAt = Date.now();
  const record = await client.payouts.get(payout.payoutId);
  const elapsedMs = Date.now() - startedAt;
  assert.equal(record.payoutId, payout.payoutId);
  assert.equal(sentTo(path, 'GET').length, 2);
  assert.ok(elapsedMs >= 1000, `waited the Retry-After (${elapsedMs} ms)`);
  assert.ok(elapsedMs < 1000 * 1.1 + 1500, `and not much more (${elapsedMs} ms)`);
});

test('a settlement creation answered 503 is sent again with the same Idempotency-Key and creates one settlement, not a replay', async () => {
  const rate = await client.rates.lock({ destinationMemberId: 'PARTNER_MX' });
  recorder.interceptNext('/v2/settlements', unavailable(null));
  const before = sentTo('/v2/settlements', 'POST').length;
  const created = await client.settlements.create({ destinationMemberId: 'PARTNER_MX', settlementAmt: 10, rateId: rate.rateId, executionInterval: 'IMMEDIATE' });
  const attempts = sentTo('/v2/settlements', 'POST').slice(before);
  assert.deepEqual(attempts.map((a) => a.idempotencyKey), [created.idempotencyKey, created.idempotencyKey]);
  assert.equal(created.replayed, false, 'the 503 created nothing: the second attempt created it');
  const again = await client.settlements.create({ destinationMemberId: 'PARTNER_MX', settlementAmt: 10, rateId: rate.rateId, executionInterval: 'IMMEDIATE' }, { idempotencyKey: created.idempotencyKey });
  assert.equal(again.replayed, true);
  assert.equal(again.settlement.settlementId, created.settlement.settlementId);
});

test('a payout creation whose answer was lost comes back as a replay: the first attempt created it', async () => {
  const body = newPayout();
  recorder.interceptNext('/v2/payouts', dropAfterSending);
  const created = await client.payouts.create(body);
  assert.equal(created.replayed, true);
  assert.equal(created.payout.sourceMemberPayoutId, body.sourceMemberPayoutId);
  const fresh = await client.payouts.create(newPayout());
  assert.equal(fresh.replayed, false);
  assert.match(fresh.requestId ?? '', /\S/);
});

test('a cancel (not idempotent) answered 503 is sent once: an ApiError with retryAfterMs', async () => {
  const { payout } = await client.payouts.create(newPayout());
  const path = `/v2/payouts/${payout.payoutId}/cancel`;
  recorder.interceptNext(path, unavailable('1'));
  await assert.rejects(client.payouts.cancel(payout.payoutId, { cancellationReason: 'customer request' }), (error: unknown) =>
    error instanceof ApiError && error.status === 503 && error.code === 'SERVICE_UNAVAILABLE' && error.retryAfterMs === 1000);
  assert.equal(sentTo(path, 'POST').length, 1);
});

test('retries stop at maxTotalDelayMs: the 503 reaches the caller once the next wait would pass it', async () => {
  const bounded = demoClient(service.url, { fetch: recorder.fetch, retry: { attempts: 5, maxDelayMs: 2000, maxTotalDelayMs: 1500 } });
  const path = '/v2/destination-members';
  for (let i = 0; i < 5; i++) recorder.interceptNext(path, unavailable('1'));
  const before = sentTo(path, 'GET').length;
  await assert.rejects(bounded.members.list(), (error: unknown) => error instanceof ApiError && error.status === 503 && error.retryAfterMs === 1000);
  assert.equal(sentTo(path, 'GET').length - before, 2, 'one wait of about a second fits in 1.5 s, two do not');
  recorder.sent.length = 0;
});

test("the service's own 429: a Retry-After longer than maxDelayMs is not waited for, and retryAfterMs says how long", async () => {
  const limited = await startTestService({ WORKERS: '0', RATE_LIMIT_PER_MINUTE: '3' });
  try {
    const own = recordingFetch();
    const tight = demoClient(limited.url, { fetch: own.fetch, retry: { maxDelayMs: 2000 } });
    const startedAt = Date.now();
    let refused: ApiError | undefined;
    for (let i = 0; i < 5 && !refused; i++) {
      await tight.codes.purposes().catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 429) refused = error;
        else throw error;
      });
    }
    assert.ok(refused, 'a request over 3 a minute is refused');
    assert.equal(refused.code, 'RATE_LIMITED');
    assert.ok((refused.retryAfterMs ?? 0) > 2000, `Retry-After ${refused.retryAfterMs} ms, over the 2 s bound`);
    const statuses = own.sent.filter((sent) => sent.path === '/v2/purpose-codes').map((sent) => sent.status);
    assert.deepEqual(statuses.filter((status) => status === 429), [429], 'the refused request was not sent again');
    assert.equal(statuses.at(-1), 429);
    assert.ok(Date.now() - startedAt < 5000, 'no waiting');
  } finally {
    await limited.stop();
  }
});

/** A loopback server that takes requests and answers nothing, or only the headers of an answer. */
async function stallingServer(mode: 'silent' | 'headers-only'): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_request, response) => {
    if (mode === 'headers-only') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"access_token":');
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

for (const mode of ['silent', 'headers-only'] as const) {
  test(`a server that ${mode === 'silent' ? 'never answers' : 'sends headers and then stalls the body'} is a RequestTimeoutError after timeoutMs`, async () => {
    const server = await stallingServer(mode);
    try {
      const slow = demoClient(server.url, { timeoutMs: 300, retry: { attempts: 1 } });
      const startedAt = Date.now();
      await assert.rejects(slow.members.list(), (error: unknown) =>
        error instanceof RequestTimeoutError && error.timeoutMs === 300 && error.method === 'POST' && error.url.endsWith('/oauth2/token'));
      const elapsedMs = Date.now() - startedAt;
      assert.ok(elapsedMs >= 290 && elapsedMs < 300 + 2000, `${elapsedMs} ms`);
    } finally {
      await server.close();
    }
  });
}
