// Settlement rates from a price feed: the service in production mode (and in the sandbox, with
// RATE_FEED_URL set) reads the reference price feed, a separate process speaking the feed protocol.
// A fresh quote locks a rate with the feed spread, the interval buffer and the corridor spread
// applied exactly; a stale, future-dated, failing, hanging or unreadable feed is 503
// SERVICE_UNAVAILABLE with Retry-After and the reason, and locks nothing.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedForProduction, startTestService, type TestService } from '../support/service.ts';
import { bearer, expectError, json, token } from '../support/http.ts';
import { eventually } from '../support/payouts.ts';
import { settlementApi, type Json, type RateRecord } from '../support/settlements.ts';
import { spawnPriceFeed, type PriceFeed } from '../support/price-feed.ts';

const FEED_SETTINGS = {
  RATE_FEED_TIMEOUT_MS: '300', RATE_FEED_MAX_AGE_MS: '60000', RATE_FEED_SPREAD_BPS: '20', RATE_FEED_INTERVAL_BUFFER_BPS: '5', RATE_FEED_CACHE_MS: '0',
};
// mid 17.123456, less 20 bps and 5 bps per hour ahead (rounded down), then less the corridor's 50 bps (half-up)
const EXPECTED_RATES = [17.003763, 16.995244, 16.986725, 16.978205, 16.969687, 16.961168, 16.952649];

let feed: PriceFeed;
let production: TestService;
let accessToken: string;
let productionEnv: Record<string, string>;

async function startProduction(): Promise<{ service: TestService; accessToken: string }> {
  const { env, credentials } = await seedForProduction(['settlements']);
  productionEnv = env;
  const service = await startTestService({ ...env, WORKERS: '0', RATE_FEED_URL: feed.url, ...FEED_SETTINGS });
  return { service, accessToken: await token(service.url, { ...credentials, scope: 'settlements' }) };
}

before(async () => {
  feed = await spawnPriceFeed();
  ({ service: production, accessToken } = await startProduction());
});
after(async () => {
  await production?.stop();
  await feed?.stop();
});
beforeEach(async () => {
  await feed.behave({});
  await feed.setMid('USD/MXN', '17.123456');
});

const lock = (url = production.url, auth = accessToken) =>
  fetch(`${url}/v2/settlement-rates?destinationMemberId=PARTNER_MX`, { headers: bearer(auth) });
const lockedCount = async () => (await production.db.query<{ n: number }>('SELECT count(*)::int AS n FROM settlement_rates')).rows[0]!.n;

/** 503 SERVICE_UNAVAILABLE, Retry-After: 5, the detail matching; and no rate locked. */
async function expectUnavailable(detail: RegExp): Promise<void> {
  const before = await lockedCount();
  const response = await lock();
  assert.equal(response.headers.get('retry-after'), '5');
  await expectError(response, 503, 'SERVICE_UNAVAILABLE', detail);
  assert.equal(await lockedCount(), before, 'nothing locked');
}

describe('production mode with a price feed', () => {
  test('a fresh quote locks a rate: the feed spread, the per-interval buffer and the corridor spread, exactly', async () => {
    const response = await lock();
    assert.equal(response.status, 200);
    const body = await json<RateRecord>(response);
    assert.equal(body.rate, EXPECTED_RATES[0]);
    assert.deepEqual(body.forecastRates.map((f) => f.rate), EXPECTED_RATES);
    const { rows: [row] } = await production.db.query(
      'SELECT mid_rate::text AS mid, spread_bps AS spread, forecast_rates::text[] AS forecast FROM settlement_rates WHERE rate_id = $1', [body.rateId]);
    assert.deepEqual(row, { mid: '17.089209', spread: 50, forecast: EXPECTED_RATES.map((r) => r.toFixed(6)) });
  });

  test('a mid with more decimals than a rate is rounded down, never up', async () => {
    await feed.setMid('USD/MXN', '17.1234569');
    const body = await json<RateRecord>(await lock());
    // 17.1234569 * 0.998 = 17.0892099862 -> 17.089209 (half-up would give 17.089210); * 0.995 = 17.003762955 -> 17.003763
    assert.equal(body.rate, 17.003763);
    const { rows: [row] } = await production.db.query('SELECT mid_rate::text AS mid FROM settlement_rates WHERE rate_id = $1', [body.rateId]);
    assert.equal(row.mid, '17.089209');
  });

  test('a quote older than RATE_FEED_MAX_AGE_MS: 503 naming its age and the limit, nothing locked', async () => {
    await feed.behave({ asOfOffsetMs: -93_000 });
    await expectUnavailable(/^rate: the price feed's quote for USD\/MXN is 93 s old \(limit 60 s\)$/);
  });

  test('a quote dated in the future beyond the clock skew: 503', async () => {
    await feed.behave({ asOfOffsetMs: 30_000 });
    await expectUnavailable(/^rate: the price feed's quote for USD\/MXN is dated (29|30) s in the future \(asOf \d{4}-.+Z\)$/);
  });

  test('a quote a little old, or a little ahead of our clock, is used', async () => {
    await feed.behave({ asOfOffsetMs: -50_000 });
    assert.equal((await lock()).status, 200);
    await feed.behave({ asOfOffsetMs: 2000 });
    assert.equal((await lock()).status, 200);
  });

  test('the feed answers 500, or a 404 that is not its unknown-pair answer: 503', async () => {
    await feed.behave({ answer: 'ERROR', errorStatus: 500 });
    await expectUnavailable(/^rate: the price feed answered 500 for USD\/MXN$/);
    await feed.behave({ answer: 'ERROR', errorStatus: 404 });
    await expectUnavailable(/^rate: the price feed answered 404 for USD\/MXN$/);
  });

  test('the feed hangs: 503 once RATE_FEED_TIMEOUT_MS has passed', async () => {
    await feed.behave({ answer: 'HANG' });
    const started = Date.now();
    await expectUnavailable(/^rate: the price feed did not answer within 300 ms$/);
    assert.ok(Date.now() - started < 3000, `answered after ${Date.now() - started} ms`);
  });

  test('garbage: not JSON, a mid as a JSON number, a quote for another pair: 503', async () => {
    await feed.behave({ answer: 'GARBAGE' });
    await expectUnavailable(/^rate: the price feed's answer for USD\/MXN is not JSON$/);
    await feed.behave({ answer: 'NUMBER_MID' });
    await expectUnavailable(/^rate: the price feed's answer for USD\/MXN is not a quote$/);
    await feed.behave({ answer: 'WRONG_PAIR' });
    await expectUnavailable(/^rate: the price feed answered for MXN\/USD when asked for USD\/MXN$/);
    await feed.setMid('USD/MXN', '17,12');
    await expectUnavailable(/is not a quote$/);
  });

  test('a mid that leaves no positive rate after the feed spread: 503, never a zero rate', async () => {
    await feed.setMid('USD/MXN', '0.000001');
    await expectUnavailable(/^rate: the price feed's mid for USD\/MXN \(0\.000001\) leaves no positive rate after the feed spread$/);
  });

  test('a pair the feed does not know: the unquoted-pair answer (503, no Retry-After), nothing locked', async () => {
    await feed.forget('USD/MXN');
    const before = await lockedCount();
    const response = await lock();
    assert.equal(response.headers.get('retry-after'), null);
    await expectError(response, 503, 'SERVICE_UNAVAILABLE', /^USD\/MXN is not quoted right now$/);
    assert.equal(await lockedCount(), before);
  });

  test('the feed recovers: the next lock succeeds', async () => {
    await feed.behave({ answer: 'ERROR' });
    assert.equal((await lock()).status, 503);
    await feed.behave({});
    assert.equal((await lock()).status, 200);
  });
});

describe('the sandbox with RATE_FEED_URL', () => {
  test('locks from the feed, and a settlement with that rate completes for settlementAmt * rate', async () => {
    const sandbox = await startTestService({ WORKERS: '2', RATE_FEED_URL: feed.url, ...FEED_SETTINGS });
    try {
      const auth = await token(sandbox.url, { scope: 'settlements' });
      const api = settlementApi(sandbox.url, auth);
      const rate = await api.lockRate('PARTNER_MX');
      assert.equal(rate.rate, EXPECTED_RATES[0]);
      const created = await api.create({ destinationMemberId: 'PARTNER_MX', settlementAmt: 1234.56, rateId: rate.rateId, executionInterval: 'IMMEDIATE' });
      assert.equal(created.status, 201);
      const id = String((await json(created))['settlementId']);
      const read = async () => json<Json>(await fetch(`${sandbox.url}/v2/settlements/${id}`, { headers: bearer(auth) }));
      const done = await eventually(read, (r) => r['settlementStatus'] === 'S600_COMPLETED', 15_000);
      assert.equal(done['settlementStatus'], 'S600_COMPLETED');
      assert.equal(done['settlementAmtReceived'], 20992.17); // 1234.56 * 17.003763 = 20992.1716... half-up
      await feed.behave({ answer: 'ERROR' });
      await expectError(await lock(sandbox.url, auth), 503, 'SERVICE_UNAVAILABLE', /^rate: the price feed answered 500/);
    } finally {
      await sandbox.stop();
    }
  });
});

describe('production mode without RATE_FEED_URL', () => {
  test('quotes nothing: every rate lock is the unquoted-pair answer and nothing is locked', async () => {
    await production.stop();
    production = await startTestService({ ...productionEnv, WORKERS: '0' });
    const before = await lockedCount();
    const requestsBefore = await feed.requests();
    await expectError(await lock(), 503, 'SERVICE_UNAVAILABLE', /^USD\/MXN is not quoted right now$/);
    assert.equal(await lockedCount(), before);
    assert.equal(await feed.requests(), requestsBefore, 'the feed is not asked');
  });
});
