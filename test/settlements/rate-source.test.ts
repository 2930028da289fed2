// The sandbox rate source: reproducible from the time alone, drifting within +-15 basis points,
// with a forward drift per hour ahead; exact integer arithmetic.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { driftTenthsBps, sandboxRateSource, SANDBOX_MID_RATES } from '../../src/settlements/sandbox-rates.ts';
import { RATE_SCALE } from '../../src/settlements/rate-source.ts';

const minute = (n: number) => new Date(n * 60_000);

describe('sandbox rate source', () => {
  test('the drift is a triangle wave of +-15 basis points over two hours', () => {
    assert.equal(driftTenthsBps(minute(0)), -150);
    assert.equal(driftTenthsBps(minute(30)), 0);
    assert.equal(driftTenthsBps(minute(60)), 150);
    assert.equal(driftTenthsBps(minute(90)), 0);
    assert.equal(driftTenthsBps(minute(119)), -145);
    assert.equal(driftTenthsBps(minute(120)), -150);
    assert.equal(driftTenthsBps(new Date(60 * 60_000 + 59_999)), 150, 'constant within a minute');
    for (let m = 0; m < 240; m++) assert.ok(Math.abs(driftTenthsBps(minute(m))) <= 150);
  });

  test('the quote is the table rate with the drift, and each hour ahead adds the pair\'s forward drift', async () => {
    const at = minute(60); // +15 bps
    const quoted = await sandboxRateSource.quote('USD', 'MXN', at);
    assert.ok(quoted.ok);
    const quote = quoted.value;
    // 17.0523 * 1.0015 = 17.07787845 -> 17.077878 (half-up at 6 decimals)
    assert.equal(quote.forecast[0], 17_077_878n);
    // + 1 bp per hour: 17.077878 * 1.0001 = 17.0795857878 -> 17.079586; * 1.0006 = 17.0881247268 -> 17.088125
    assert.equal(quote.forecast[1], 17_079_586n);
    assert.equal(quote.forecast[6], 17_088_125n);
    assert.equal(quote.forecast.length, 7);
    assert.deepEqual(await sandboxRateSource.quote('USD', 'MXN', new Date(at.getTime() + 30_000)), quoted, 'the same minute, the same quote');
  });

  test('every sandbox destination currency is quoted against USD; other pairs are not', async () => {
    for (const ccy of ['MXN', 'BRL', 'PHP', 'INR', 'NGN', 'KES', 'GHS']) {
      const quoted = await sandboxRateSource.quote('USD', ccy, new Date());
      assert.ok(quoted.ok, ccy);
      const quote = quoted.value;
      const mid = Number(SANDBOX_MID_RATES[`USD/${ccy}`]!.mid);
      assert.ok(Math.abs(Number(quote.forecast[0]!) / Number(RATE_SCALE) - mid) <= mid * 0.0016, `${ccy} within the drift`);
    }
    assert.deepEqual(await sandboxRateSource.quote('EUR', 'MXN', new Date()), { ok: false, error: 'NOT_QUOTED', detail: '' });
  });
});
