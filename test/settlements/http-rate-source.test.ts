// The HTTP rate source on its own, against the reference price feed process: one feed call per pair
// at a time, a short cache whose quotes are aged again at each use, an unreachable feed; the
// feed's mid to the rate of each interval (exact, rounded down, never above the mid); and its
// configuration.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { spawnPriceFeed, type PriceFeed } from '../support/price-feed.ts';
import { createHttpRateSource, type HttpRateSourceOptions } from '../../src/settlements/http-rate-source.ts';
import { feedForecast } from '../../src/settlements/rate-feed-protocol.ts';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';

let feed: PriceFeed;
before(async () => {
  feed = await spawnPriceFeed();
});
after(async () => {
  await feed?.stop();
});
beforeEach(async () => {
  await feed.behave({});
  await feed.setMid('USD/MXN', '17.0523');
});

const sourceWith = (options: Partial<HttpRateSourceOptions> = {}) =>
  createHttpRateSource({ baseUrl: feed.url, timeoutMs: 500, maxAgeMs: 60_000, spreadBps: 0, intervalBufferBps: 0, cacheMs: 0, ...options });

describe('feed calls', () => {
  test('locks asked together for one pair share one feed call; without a cache each later one asks again', async () => {
    const source = sourceWith();
    try {
      const before = await feed.requests();
      const together = await Promise.all([1, 2, 3, 4, 5].map(() => source.quote('USD', 'MXN', new Date())));
      assert.ok(together.every((q) => q.ok && q.value.forecast[0] === 17_052_300n));
      assert.equal(await feed.requests(), before + 1);
      await source.quote('USD', 'MXN', new Date());
      await source.quote('USD', 'MXN', new Date());
      assert.equal(await feed.requests(), before + 3);
    } finally {
      await source.close();
    }
  });

  test('a kept answer serves its pair for cacheMs, and its age is checked again at each use', async () => {
    let nowMs = Date.now();
    const source = sourceWith({ cacheMs: 60_000, clock: { now: () => new Date(nowMs) } });
    try {
      await feed.behave({ asOfOffsetMs: -50_000 });
      const before = await feed.requests();
      assert.ok((await source.quote('USD', 'MXN', new Date())).ok);
      assert.ok((await source.quote('USD', 'MXN', new Date())).ok);
      assert.equal(await feed.requests(), before + 1, 'the second came from the cache');
      nowMs = Date.now() + 20_000; // the kept quote is now 70 s old
      const stale = await source.quote('USD', 'MXN', new Date());
      assert.ok(!stale.ok);
      assert.equal(stale.error, 'RATE_SOURCE_UNAVAILABLE');
      assert.match(stale.detail, /^the price feed's quote for USD\/MXN is 70 s old \(limit 60 s\)$/);
      assert.equal(stale.retryAfterSeconds, 5);
    } finally {
      await source.close();
    }
  });

  test('a failure is not kept: the next quote asks the feed again', async () => {
    const source = sourceWith({ cacheMs: 60_000 });
    try {
      await feed.behave({ answer: 'ERROR', errorStatus: 503 });
      assert.ok(!(await source.quote('USD', 'MXN', new Date())).ok);
      await feed.behave({});
      assert.ok((await source.quote('USD', 'MXN', new Date())).ok);
    } finally {
      await source.close();
    }
  });

  test('a feed that cannot be reached: unavailable, naming the connection error', async () => {
    const source = createHttpRateSource({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 500, maxAgeMs: 60_000, spreadBps: 0, intervalBufferBps: 0, cacheMs: 0 });
    try {
      const result = await source.quote('USD', 'MXN', new Date());
      assert.deepEqual(result, { ok: false, error: 'RATE_SOURCE_UNAVAILABLE', detail: 'the price feed could not be reached (ECONNREFUSED)', retryAfterSeconds: 5 });
    } finally {
      await source.close();
    }
  });

  test('an unknown pair is NOT_QUOTED', async () => {
    const source = sourceWith();
    try {
      assert.deepEqual(await source.quote('USD', 'EUR', new Date()), { ok: false, error: 'NOT_QUOTED', detail: '' });
    } finally {
      await source.close();
    }
  });
});

describe('the feed mid as the rate of each interval', () => {
  const BPS = 10_000n;
  const mids = fc.tuple(fc.bigInt({ min: 0n, max: 999_999_999n }), fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 0, maxLength: 18 }))
    .filter(([int, frac]) => int > 0n || /[1-9]/.test(frac))
    .map(([int, frac]) => (frac === '' ? String(int) : `${int}.${frac}`));

  test('exact: each rate is the largest at six decimals not above mid * (1 - spread - hours * buffer)', () => {
    fc.assert(fc.property(mids, fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 500 }), (mid, spreadBps, bufferBps) => {
      const [int = '', frac = ''] = mid.split('.');
      const digits = BigInt(int + frac);
      const scale = 10n ** BigInt(frac.length);
      const forecast = feedForecast(mid, spreadBps, bufferBps);
      assert.equal(forecast.length, 7);
      forecast.forEach((rate, hours) => {
        const exact = digits * (BPS - BigInt(spreadBps + hours * bufferBps)) * 1_000_000n; // over scale * BPS
        assert.ok(rate * scale * BPS <= exact, 'never above the exact value');
        assert.ok((rate + 1n) * scale * BPS > exact, 'less than one millionth below it');
      });
    }));
  });

  test('direction: never above the mid, and never higher for a later interval', () => {
    fc.assert(fc.property(mids, fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 500 }), (mid, spreadBps, bufferBps) => {
      const forecast = feedForecast(mid, spreadBps, bufferBps);
      const [int = '', frac = ''] = mid.split('.');
      assert.ok(forecast[0]! * 10n ** BigInt(frac.length) <= BigInt(int + frac) * 1_000_000n);
      for (let i = 1; i < 7; i++) assert.ok(forecast[i]! <= forecast[i - 1]!);
    }));
  });

  test('no spread, no buffer and six decimals or fewer: the mid itself', () => {
    assert.deepEqual(feedForecast('17.0523', 0, 0), Array(7).fill(17_052_300n));
    assert.deepEqual(feedForecast('25000', 0, 0), Array(7).fill(25_000_000_000n));
    // more decimals than a rate: rounded down (half-up would give 0.555556)
    assert.equal(feedForecast('0.5555555', 0, 0)[0], 555_555n);
    // 1.999999 * 0.9999 = 1.9997990001 -> 1.999799; one hour ahead * 0.9998 = 1.9995990002 -> 1.999599
    assert.deepEqual(feedForecast('1.999999', 1, 1).slice(0, 2), [1_999_799n, 1_999_599n]);
  });
});

describe('configuration', () => {
  test('RATE_FEED_URL unset: no feed; set: its settings with their defaults', () => {
    assert.equal(loadConfig({}).rateFeed, undefined);
    assert.deepEqual(loadConfig({ RATE_FEED_URL: 'https://feed.example/v1' }).rateFeed, {
      url: 'https://feed.example/v1', timeoutMs: 2000, maxAgeMs: 60_000, spreadBps: 0, intervalBufferBps: 5, cacheMs: 1000,
    });
  });

  test('a bad value stops the boot naming the variable', () => {
    for (const [name, value] of [
      ['RATE_FEED_URL', 'ftp://feed.example'], ['RATE_FEED_URL', 'https://feed.example/?key=1'], ['RATE_FEED_TIMEOUT_MS', '50'],
      ['RATE_FEED_MAX_AGE_MS', '999'], ['RATE_FEED_SPREAD_BPS', '1001'], ['RATE_FEED_INTERVAL_BUFFER_BPS', '-1'], ['RATE_FEED_CACHE_MS', '10001'],
    ] as const) {
      assert.throws(() => loadConfig({ [name]: value }), (error: unknown) => error instanceof ConfigError && error.message.includes(name), `${name}=${value}`);
    }
  });
});
