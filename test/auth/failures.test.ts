// Failed authentication is limited per source address and per client id, in counters of its own
// kept in PostgreSQL: an attacker who knows a client id cannot lock that client out, junk bearer
// tokens are limited, X-Forwarded-For counts only from trusted proxies, and the limits hold across
// processes sharing one database. Several source addresses are played by binding 127.0.0.x.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestService, tempDataDir, type TestService } from '../support/service.ts';
import { startTestDatabase, type TestDatabase } from '../support/database.ts';
import { DEMO, DEMO_2, bearer, expectError, requestFrom, requestTokenFrom } from '../support/http.ts';
import { eventually } from '../support/payouts.ts';
import { addressKey, createFailureGuard } from '../../src/auth/failures.ts';

const ADDRESS_MAX = 5;
const CLIENT_MAX = 8;
// a day-long window, so that no window boundary falls inside a test run (except at midnight UTC)
const WINDOW_SECONDS = 86_400;

let database: TestDatabase;
/** a and b: two processes on one database, TRUST_PROXY off; proxied: a third, trusting 127.0.0.1. */
let a: TestService;
let b: TestService;
let proxied: TestService;

before(async () => {
  database = await startTestDatabase();
  const env = {
    DATABASE_URL: database.url,
    TOKEN_SIGNING_KEY: randomBytes(32).toString('base64'),
    CLIENT_SECRET_KEY: randomBytes(32).toString('base64'),
    WORKERS: '0',
    WEBHOOK_WORKERS: '0',
    // low, so that the attacks below would overflow it if failures still spent the client's budget
    RATE_LIMIT_PER_MINUTE: '60',
    AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW_SECONDS),
    AUTH_FAILURES_PER_ADDRESS_MAX: String(ADDRESS_MAX),
    AUTH_FAILURES_PER_CLIENT_MAX: String(CLIENT_MAX),
  };
  a = await startTestService(env);
  [b, proxied] = await Promise.all([startTestService(env), startTestService({ ...env, TRUST_PROXY: '127.0.0.1' })]);
});

after(async () => {
  await Promise.all([a?.stop(), b?.stop(), proxied?.stop()]);
  await database?.stop();
});

const wrong = (clientId: string) => ({ clientId, secret: 'not-the-secret' });

async function tokenFrom(address: string, service: TestService, credentials: { clientId: string; secret: string }, headers: Record<string, string> = {}) {
  const response = await requestTokenFrom(address, service.url, credentials, headers);
  assert.equal(response.status, 200, await response.clone().text());
  return ((await response.json()) as { access_token: string }).access_token;
}

/** Asserts the refusal of a limited attempt: 429 RATE_LIMITED with a Retry-After within the window. */
async function expectLimited(response: Response, detail?: RegExp) {
  const retryAfter = Number(response.headers.get('retry-after'));
  assert.ok(retryAfter >= 1 && retryAfter <= WINDOW_SECONDS, `Retry-After ${response.headers.get('retry-after')}`);
  await expectError(response, 429, 'RATE_LIMITED', detail);
}

const codesFrom = (address: string, service: TestService, accessToken: string) =>
  requestFrom(address, `${service.url}/v2/purpose-codes`, { headers: bearer(accessToken) });

describe('failed token requests, per source address', () => {
  test(`after ${ADDRESS_MAX} failures an address gets 429 for any token request, the right secret too; other addresses do not`, async () => {
    for (let i = 0; i < ADDRESS_MAX; i++) {
      // unknown client ids, malformed Basic and missing credentials all count
      const response = i === 0
        ? await requestFrom('127.0.0.2', `${a.url}/oauth2/token`, { method: 'POST', headers: { authorization: 'Basic !!', 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&scope=payouts' })
        : await requestTokenFrom('127.0.0.2', a.url, wrong(`nobody-${i}`));
      assert.equal(response.status, i === 0 ? 400 : 401);
    }
    await expectLimited(await requestTokenFrom('127.0.0.2', a.url, wrong('nobody-else')), /per 86400 seconds from this address/);
    await expectLimited(await requestTokenFrom('127.0.0.2', a.url, DEMO_2));
    await tokenFrom('127.0.0.1', a, DEMO_2);
  });

  test('X-Forwarded-For is ignored when TRUST_PROXY is off: every failure counts against the peer', async () => {
    for (let i = 0; i < ADDRESS_MAX; i++) {
      const response = await requestTokenFrom('127.0.0.3', a.url, wrong('nobody-3'), { 'x-forwarded-for': `203.0.113.${i + 1}` });
      assert.equal(response.status, 401);
    }
    await expectLimited(await requestTokenFrom('127.0.0.3', a.url, wrong('nobody-3'), { 'x-forwarded-for': '203.0.113.99' }));
  });
});

describe('junk bearer tokens, per source address', () => {
  test(`after ${ADDRESS_MAX} failed bearer tokens an address gets 429; valid tokens and token requests from it still work`, async () => {
    const valid = await tokenFrom('127.0.0.4', a, DEMO_2);
    const junk = ['not-a-jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.forged', valid.slice(0, -4) + 'AAAA'];
    for (let i = 0; i < ADDRESS_MAX; i++) {
      const response = await codesFrom('127.0.0.4', a, junk[i % junk.length]!);
      await expectError(response, 401, 'UNAUTHORIZED');
    }
    await expectLimited(await codesFrom('127.0.0.4', a, 'not-a-jwt'), /from this address/);
    await expectLimited(await requestFrom('127.0.0.4', `${a.url}/v2/purpose-codes`)); // no token at all
    assert.equal((await codesFrom('127.0.0.4', a, valid)).status, 200);
    // an expired token's burst must not keep its client from getting a new one
    await tokenFrom('127.0.0.4', a, DEMO_2);
    await expectError(await codesFrom('127.0.0.1', a, 'not-a-jwt'), 401, 'UNAUTHORIZED');
  });
});

describe('lockout by client id', () => {
  test('many wrong secrets for a client id from one address: the real client still gets tokens and its API calls never 429', async () => {
    const statuses = new Map<number, number>();
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 10; i++) {
        const status = (await requestTokenFrom('127.0.0.5', a.url, wrong(DEMO.clientId))).status;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
      const accessToken = await tokenFrom('127.0.0.1', a, DEMO);
      assert.equal((await codesFrom('127.0.0.1', a, accessToken)).status, 200);
    }
    assert.deepEqual(Object.fromEntries(statuses), { 401: ADDRESS_MAX, 429: 100 - ADDRESS_MAX });
  });

  test('wrong secrets for a client id from many addresses behind a trusted proxy: one guess per address once the client id is over its limit', async () => {
    const statuses = new Map<number, number>();
    let clientRefusal: Response | undefined;
    for (let n = 1; n <= 30; n++) {
      for (let i = 0; i < 3; i++) {
        const response = await requestTokenFrom('127.0.0.1', proxied.url, wrong(DEMO_2.clientId), { 'x-forwarded-for': `203.0.113.${n}` });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status === 429) clientRefusal = response;
      }
      if (n % 5 === 0) {
        // the real client, behind the same proxy at its own address, and straight from the proxy's
        const viaProxy = await tokenFrom('127.0.0.1', proxied, DEMO_2, { 'x-forwarded-for': '198.51.100.7' });
        assert.equal((await codesFrom('127.0.0.1', proxied, viaProxy)).status, 200);
        await tokenFrom('127.0.0.1', proxied, DEMO_2);
      }
    }
    // 3 addresses use up the first 8 failures (3 + 3 + 2), then each fresh address fails once
    assert.deepEqual(Object.fromEntries(statuses), { 401: CLIENT_MAX + 27, 429: 90 - CLIENT_MAX - 27 });
    await expectLimited(clientRefusal!, /for this client id from addresses that have failed for it/);
  });

  test('X-Forwarded-For from a trusted proxy counts per forwarded address; from an untrusted peer it is ignored', async () => {
    for (let i = 0; i < ADDRESS_MAX; i++) {
      assert.equal((await requestTokenFrom('127.0.0.1', proxied.url, wrong('nobody-proxied'), { 'x-forwarded-for': '192.0.2.10' })).status, 401);
    }
    await expectLimited(await requestTokenFrom('127.0.0.1', proxied.url, wrong('nobody-proxied'), { 'x-forwarded-for': '192.0.2.10' }));
    assert.equal((await requestTokenFrom('127.0.0.1', proxied.url, wrong('nobody-proxied'), { 'x-forwarded-for': '192.0.2.11' })).status, 401);
    // 127.0.0.6 is no trusted proxy: its forwarded addresses are not believed
    for (let i = 0; i < ADDRESS_MAX; i++) {
      assert.equal((await requestTokenFrom('127.0.0.6', proxied.url, wrong('nobody-direct'), { 'x-forwarded-for': `192.0.2.${20 + i}` })).status, 401);
    }
    await expectLimited(await requestTokenFrom('127.0.0.6', proxied.url, wrong('nobody-proxied'), { 'x-forwarded-for': '192.0.2.99' }));
  });
});

describe('two processes on one database', () => {
  test('failed token requests count once across both: the limit is shared', async () => {
    const services = [a, b, a, b, a];
    for (const service of services) assert.equal((await requestTokenFrom('127.0.0.7', service.url, wrong('nobody-shared'))).status, 401);
    await expectLimited(await requestTokenFrom('127.0.0.7', b.url, wrong('nobody-shared')));
    await expectLimited(await requestTokenFrom('127.0.0.7', a.url, DEMO));
  });

  test('failed bearer tokens count once across both: the limit is shared', async () => {
    for (const service of [b, a, b, a, b]) await expectError(await codesFrom('127.0.0.8', service, 'junk'), 401, 'UNAUTHORIZED');
    await expectLimited(await codesFrom('127.0.0.8', a, 'junk'));
    await expectLimited(await codesFrom('127.0.0.8', b, 'junk'));
  });
});

describe('the counters', () => {
  test('a concurrent burst over both processes: every answer is 401 or 429, and every 401 is counted exactly once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => requestTokenFrom('127.0.0.9', (i % 2 === 0 ? a : b).url, wrong('nobody-burst'))),
    );
    const statuses = answers.map((r) => r.status);
    assert.ok(statuses.every((s) => s === 401 || s === 429), statuses.join(' '));
    const failed = statuses.filter((s) => s === 401).length;
    // concurrent attempts that pass the check together may all be verified: the overshoot is bounded by the burst
    assert.ok(failed >= ADDRESS_MAX, `${failed} failures`);
    const { rows } = await a.db.query(`SELECT failures FROM auth_failures WHERE bucket IN ('token-address:127.0.0.9', 'client:nobody-burst') ORDER BY bucket`);
    assert.deepEqual(rows.map((r) => r.failures), [failed, failed]);
    await expectLimited(await requestTokenFrom('127.0.0.9', a.url, wrong('nobody-burst')));
  });

  test('counts of past windows are deleted as new failures are counted; the current window stays', async () => {
    await a.db.query(`INSERT INTO auth_failures (bucket, window_start, failures) VALUES ('token-address:192.0.2.250', now() - interval '3 days', 7)`);
    const guard = createFailureGuard({ db: a.db, limits: { windowSeconds: WINDOW_SECONDS, perAddressMax: ADDRESS_MAX, perClientMax: CLIENT_MAX } });
    await guard.tokenFailed('192.0.2.251', undefined);
    const old = async () => (await a.db.query(`SELECT count(*)::int AS n FROM auth_failures WHERE window_start < now() - interval '2 days'`)).rows[0].n as number;
    await eventually(old, (n) => n === 0);
    const current = await a.db.query(`SELECT failures FROM auth_failures WHERE bucket = 'token-address:192.0.2.251'`);
    assert.deepEqual(current.rows, [{ failures: 1 }]);
  });
});

describe('the operators\' signal', () => {
  test('a process reports a bucket once when it first refuses it in a window', async () => {
    const reached: string[] = [];
    const guard = createFailureGuard({
      db: a.db,
      limits: { windowSeconds: WINDOW_SECONDS, perAddressMax: ADDRESS_MAX, perClientMax: CLIENT_MAX },
      onLimitReached: (bucket) => reached.push(bucket),
    });
    const answers = [];
    for (let i = 0; i < ADDRESS_MAX + 3; i++) answers.push(await guard.bearerFailed('198.51.100.200'));
    assert.deepEqual(answers.map((r) => r?.over), [...Array(ADDRESS_MAX).fill(undefined), 'address', 'address', 'address']);
    assert.deepEqual(reached, ['bearer-address:198.51.100.200']);
  });
});

test('IPv4 addresses count one by one, IPv6 addresses by their /64', () => {
  assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('::ffff:203.0.113.7'), '::ffff:203.0.113.7');
  assert.equal(addressKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:0DB8:0001:0002::9'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
});
