// GET /v2/settlement-rates and the sandbox rate-expire control: each call locks a new rate, with
// the corridor's spread, for every execution interval; every refusal with its status and code.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO, DEMO_2, bearer, json, token, expectError } from '../support/http.ts';
import { createRatesService } from '../../src/settlements/rates.ts';
import { NO_RATE_SOURCE } from '../../src/settlements/rate-source.ts';
import type { RateRecord } from '../support/settlements.ts';

let service: TestService;
let settlements: string;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  settlements = await token(service.url, { scope: 'settlements' });
  // a destination member that settles in two currencies, and one with no corridor from the demo member
  await service.db.query(`INSERT INTO members (member_id, name, kind, country_code, currencies) VALUES
    ('RATES_TEST_TWO', 'Two currencies', 'DESTINATION', 'MX', '{MXN,BRL}'), ('RATES_TEST_NONE', 'No corridor', 'DESTINATION', 'MX', '{MXN}')`);
  await service.db.query(`INSERT INTO corridors (source_member_id, destination_member_id, destination_ccy, active, max_settlement_amt, rate_spread_bps) VALUES
    ($1, 'RATES_TEST_TWO', 'MXN', true, 1000, 0), ($1, 'RATES_TEST_TWO', 'BRL', true, 1000, 125)`, [DEMO.memberId]);
});
after(async () => {
  await service.stop();
});

const rates = (query: string, accessToken = settlements) => fetch(`${service.url}/v2/settlement-rates?${query}`, { headers: bearer(accessToken) });
const expire = (rateId: string, accessToken = settlements) =>
  fetch(`${service.url}/v2/sandbox/settlement-rates/${rateId}/expire`, { method: 'POST', headers: bearer(accessToken) });


async function stored(rateId: string) {
  const { rows } = await service.db.query(
    `SELECT mid_rate::text AS mid, spread_bps AS spread, forecast_rates::text[] AS forecast, used_by AS "usedBy" FROM settlement_rates WHERE rate_id = $1`, [rateId]);
  return rows[0] as { mid: string; spread: number; forecast: string[]; usedBy: string | null };
}

describe('a locked rate', () => {
  test('answers the rate of every interval, IMMEDIATE first and equal to rate, locked for 15 minutes', async () => {
    const before = Date.now();
    const response = await rates('destinationMemberId=PARTNER_MX');
    assert.equal(response.status, 200);
    const body = await json<RateRecord>(response);
    assert.match(body.rateId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(
      [body['sourceMemberId'], body['destinationMemberId'], body['sourceCcy'], body['destinationCcy']],
      [DEMO.memberId, 'PARTNER_MX', 'USD', 'MXN'],
    );
    assert.deepEqual(body.forecastRates.map((f) => f.executionInterval),
      ['IMMEDIATE', 'ONE_HOUR', 'TWO_HOURS', 'THREE_HOURS', 'FOUR_HOURS', 'FIVE_HOURS', 'SIX_HOURS']);
    assert.equal(body.forecastRates[0]!.rate, body.rate);
    for (let i = 1; i < 7; i++) assert.ok(body.forecastRates[i]!.rate > body.forecastRates[i - 1]!.rate, 'MXN weakens a little per hour ahead');
    const lockMs = Date.parse(body.expiryTime) - before;
    assert.ok(lockMs >= 15 * 60_000 - 1000 && lockMs <= 15 * 60_000 + 1000, `locked for ${lockMs} ms`);
    assert.match(body.expiryTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // the sandbox corridors keep 50 basis points: rate = mid * 0.995, half-up at 6 decimals
    const row = await stored(body.rateId);
    assert.equal(row.spread, 50);
    const midMicros = BigInt(row.mid.replace('.', ''));
    assert.equal(BigInt(row.forecast[0]!.replace('.', '')), (midMicros * 9950n * 2n + 10_000n) / 20_000n);
    assert.deepEqual(body.forecastRates.map((f) => f.rate), row.forecast.map(Number));
    assert.equal(row.usedBy, null);
  });

  test('every call locks a new rate', async () => {
    const a = await json<RateRecord>(await rates('destinationMemberId=PARTNER_BR'));
    const b = await json<RateRecord>(await rates('destinationMemberId=PARTNER_BR&destinationCcy=BRL'));
    assert.notEqual(a.rateId, b.rateId);
    assert.ok(await stored(a.rateId) && await stored(b.rateId));
  });

  test("the corridor's own spread applies (none: the mid-market rate)", async () => {
    const mxn = await json<RateRecord>(await rates('destinationMemberId=RATES_TEST_TWO&destinationCcy=MXN'));
    const row = await stored(mxn.rateId);
    assert.equal(mxn.rate, Number(row.mid));
    const brl = await json<RateRecord>(await rates('destinationMemberId=RATES_TEST_TWO&destinationCcy=BRL'));
    const brlRow = await stored(brl.rateId);
    assert.equal(brlRow.spread, 125);
    assert.equal(BigInt(brlRow.forecast[0]!.replace('.', '')), (BigInt(brlRow.mid.replace('.', '')) * 9875n * 2n + 10_000n) / 20_000n);
  });
});

describe('refused', () => {
  test('an unknown destination member, or one that is not a destination: 422 UNKNOWN_DESTINATION_MEMBER', async () => {
    await expectError(await rates('destinationMemberId=NOBODY'), 422, 'UNKNOWN_DESTINATION_MEMBER', /^destinationMemberId: /);
    await expectError(await rates(`destinationMemberId=${DEMO_2.memberId}`), 422, 'UNKNOWN_DESTINATION_MEMBER');
  });
  test('a suspended corridor, or none: 422 CORRIDOR_INACTIVE', async () => {
    await expectError(await rates('destinationMemberId=PARTNER_GH'), 422, 'CORRIDOR_INACTIVE', /^destinationMemberId: /);
    await expectError(await rates('destinationMemberId=RATES_TEST_NONE'), 422, 'CORRIDOR_INACTIVE');
  });
  test('a currency the member does not settle in: 422 UNSUPPORTED_CURRENCY', async () => {
    await expectError(await rates('destinationMemberId=PARTNER_MX&destinationCcy=USD'), 422, 'UNSUPPORTED_CURRENCY', /^destinationCcy: /);
  });
  test('no currency for a member that settles in two: 400 naming destinationCcy', async () => {
    await expectError(await rates('destinationMemberId=RATES_TEST_TWO'), 400, 'VALIDATION_ERROR', /^destinationCcy: required/);
  });
  test('a missing or malformed query: 400 naming the parameter', async () => {
    await expectError(await rates(''), 400, 'VALIDATION_ERROR', /destinationMemberId/);
    await expectError(await rates('destinationMemberId=partner-mx'), 400, 'VALIDATION_ERROR', /destinationMemberId/);
    await expectError(await rates('destinationMemberId=PARTNER_MX&destinationCcy=mxn'), 400, 'VALIDATION_ERROR', /destinationCcy/);
    await expectError(await rates('destinationMemberId=PARTNER_MX&amount=5'), 400, 'VALIDATION_ERROR', /amount/);
  });
  test('a token without the settlements scope: 403 INSUFFICIENT_SCOPE', async () => {
    await expectError(await rates('destinationMemberId=PARTNER_MX', await token(service.url, { scope: 'payouts' })), 403, 'INSUFFICIENT_SCOPE');
  });
  test('no rate source connected (production until a price feed exists): NOT_QUOTED, nothing locked', async () => {
    const { rows: [before] } = await service.db.query('SELECT count(*)::int AS n FROM settlement_rates');
    const noFeed = createRatesService({ db: service.db, source: NO_RATE_SOURCE, clock: { now: () => new Date() }, lockMinutes: 15 });
    const result = await noFeed.lock(DEMO.memberId, { destinationMemberId: 'PARTNER_MX' });
    assert.deepEqual(result, { ok: false, error: 'NOT_QUOTED', detail: 'USD/MXN is not quoted right now' });
    const { rows: [after] } = await service.db.query('SELECT count(*)::int AS n FROM settlement_rates');
    assert.equal(after.n, before.n);
  });
});

describe('sandbox: expire a rate', () => {
  test('ends the lock now and answers the rate as it stands; again changes nothing', async () => {
    const rate = await json<RateRecord>(await rates('destinationMemberId=PARTNER_MX'));
    const response = await expire(rate.rateId);
    assert.equal(response.status, 200);
    const expired = await json<RateRecord>(response);
    assert.ok(Date.parse(expired.expiryTime) <= Date.now());
    assert.deepEqual({ ...expired, expiryTime: rate.expiryTime }, rate);
    const again = await json<RateRecord>(await expire(rate.rateId));
    assert.equal(again.expiryTime, expired.expiryTime);
  });
  test("another member's rate, an unknown or a malformed id: 404 NOT_FOUND", async () => {
    const rate = await json<RateRecord>(await rates('destinationMemberId=PARTNER_MX'));
    const other = await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret, scope: 'settlements' });
    await expectError(await expire(rate.rateId, other), 404, 'NOT_FOUND', /^rateId: /);
    await expectError(await expire('6f1d2c3b-1a2b-4c3d-8e9f-0a1b2c3d4e5f'), 404, 'NOT_FOUND');
    await expectError(await expire('not-a-uuid'), 404, 'NOT_FOUND');
    assert.ok(Date.parse((await json<RateRecord>(await expire(rate.rateId)))['expiryTime']) <= Date.now(), 'the owner still can');
  });
});
