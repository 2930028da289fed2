// POST /v2/settlements and GET /v2/settlements/{id}: the rate of each interval, every refusal in
// the contract's order, Idempotency-Key, and the concurrency guarantees.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO, DEMO_2, bearer, json, token, expectError } from '../support/http.ts';
import { requestFingerprint } from '../../src/platform/idempotency.ts';
import { settlementApi, type Json } from '../support/settlements.ts';

let service: TestService;
let auth: string;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  auth = await token(service.url, { scope: 'settlements' });
});
after(async () => {
  await service.stop();
});

const lockRate = (destination = 'PARTNER_MX', accessToken = auth) => settlementApi(service.url, accessToken).lockRate(destination);
const create = (body: Json, headers: Record<string, string> = {}, accessToken = auth) => settlementApi(service.url, accessToken).create(body, headers);
const get = (id: string, accessToken = auth) => fetch(`${service.url}/v2/settlements/${id}`, { headers: bearer(accessToken) });
const expire = (rateId: string) => fetch(`${service.url}/v2/sandbox/settlement-rates/${rateId}/expire`, { method: 'POST', headers: bearer(auth) });
const body = (rateId: string, extra: Json = {}): Json => ({ destinationMemberId: 'PARTNER_MX', settlementAmt: 1000, rateId, executionInterval: 'IMMEDIATE', ...extra });

async function countSettlements(rateId: string): Promise<number> {
  const { rows } = await service.db.query('SELECT count(*)::int AS n FROM settlements WHERE rate_id = $1', [rateId]);
  return rows[0].n;
}

describe('a created settlement', () => {
  test('IMMEDIATE: 201 with Location, S200_RECEIVED, the IMMEDIATE rate, nothing received yet, its first event', async () => {
    const rate = await lockRate();
    const response = await create(body(rate.rateId, { settlementAmt: 1234.56, notes: 'first' }));
    assert.equal(response.status, 201);
    const record = await json(response);
    const id = String(record['settlementId']);
    assert.equal(response.headers.get('location'), `/v2/settlements/${id}`);
    assert.equal(response.headers.get('idempotent-replayed'), null);
    assert.deepEqual({ ...record, settlementId: '', creationTime: '', dueDate: '' }, {
      settlementId: '', settlementStatus: 'S200_RECEIVED', settlementAmt: 1234.56, pendingAmt: 1234.56, rate: rate.rate,
      settlementAmtReceived: null, sourceCcy: 'USD', destinationCcy: 'MXN', sourceMemberId: DEMO.memberId, destinationMemberId: 'PARTNER_MX',
      notes: 'first', creationTime: '', completionTime: null, dueDate: '', executionInterval: 'IMMEDIATE', rateId: rate.rateId,
    });
    assert.equal(record['dueDate'], record['creationTime']);
    assert.deepEqual(await json(await get(id)), record);
    const { rows } = await service.db.query('SELECT type, sequence, data FROM events WHERE resource_id = $1', [id]);
    assert.deepEqual(rows, [{ type: 'settlement.status_changed', sequence: 1, data: { ...record, previousStatus: null } }]);
    const used = await service.db.query('SELECT used_by AS "usedBy" FROM settlement_rates WHERE rate_id = $1', [rate.rateId]);
    assert.equal(used.rows[0].usedBy, id);
  });

  test('each interval gets its own locked rate; a later one is S100_SCHEDULED, due that many hours on', async () => {
    const intervals = ['IMMEDIATE', 'ONE_HOUR', 'TWO_HOURS', 'THREE_HOURS', 'FOUR_HOURS', 'FIVE_HOURS', 'SIX_HOURS'];
    for (const [hours, executionInterval] of intervals.entries()) {
      const rate = await lockRate();
      const record = await json(await create(body(rate.rateId, { executionInterval })));
      assert.equal(record['rate'], rate.forecastRates[hours]!.rate, executionInterval);
      assert.equal(record['settlementStatus'], hours === 0 ? 'S200_RECEIVED' : 'S100_SCHEDULED');
      assert.equal(Date.parse(String(record['dueDate'])) - Date.parse(String(record['creationTime'])), hours * 3_600_000);
      assert.equal(record['notes'], null);
    }
  });

  test("another member's settlement, an unknown or a malformed id: 404 NOT_FOUND", async () => {
    const record = await json(await create(body((await lockRate()).rateId)));
    const other = await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret, scope: 'settlements' });
    await expectError(await get(String(record['settlementId']), other), 404, 'NOT_FOUND', /^settlementId: /);
    await expectError(await get(randomUUID()), 404, 'NOT_FOUND');
    await expectError(await get('not-a-uuid'), 404, 'NOT_FOUND');
  });
});

describe('refused, in the contract\'s order', () => {
  test('the schema: 400 naming the field, nothing used', async () => {
    const rate = await lockRate();
    const cases: Array<[Json, RegExp]> = [
      [{ ...body(rate.rateId), destinationMemberId: undefined }, /destinationMemberId/],
      [body(rate.rateId, { destinationMemberId: 'partner-mx' }), /destinationMemberId/],
      [body(rate.rateId, { settlementAmt: 0 }), /settlementAmt/],
      [body(rate.rateId, { settlementAmt: 1_000_000_000 }), /settlementAmt/],
      [body(rate.rateId, { settlementAmt: '100' }), /settlementAmt/],
      [body(rate.rateId, { settlementAmt: 10.001 }), /^settlementAmt: more decimals than USD/],
      [body('not-a-uuid'), /rateId/],
      [body(rate.rateId, { executionInterval: 'TOMORROW' }), /executionInterval/],
      [body(rate.rateId, { notes: 'x'.repeat(501) }), /notes/],
      [body(rate.rateId, { fee: 1 }), /fee/],
    ];
    for (const [invalid, detail] of cases) await expectError(await create(invalid), 400, 'VALIDATION_ERROR', detail);
    assert.equal((await create(body(rate.rateId))).status, 201, 'the rate was still unused');
  });

  test('UNKNOWN_DESTINATION_MEMBER before anything about the rate', async () => {
    await expectError(await create(body(randomUUID(), { destinationMemberId: 'NOBODY' })), 422, 'UNKNOWN_DESTINATION_MEMBER', /^destinationMemberId: /);
    await expectError(await create(body(randomUUID(), { destinationMemberId: DEMO_2.memberId })), 422, 'UNKNOWN_DESTINATION_MEMBER');
  });

  test('CORRIDOR_INACTIVE before anything about the rate', async () => {
    await expectError(await create(body((await lockRate()).rateId, { destinationMemberId: 'PARTNER_GH' })), 422, 'CORRIDOR_INACTIVE', /^destinationMemberId: /);
  });

  test("RATE_NOT_FOUND: unknown, or another member's", async () => {
    await expectError(await create(body(randomUUID())), 422, 'RATE_NOT_FOUND', /^rateId: /);
    const other = await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret, scope: 'settlements' });
    const theirs = await lockRate('PARTNER_MX', other);
    await expectError(await create(body(theirs.rateId)), 422, 'RATE_NOT_FOUND');
    assert.equal((await create(body(theirs.rateId), {}, other)).status, 201, 'its owner can still use it');
  });

  test('RATE_ALREADY_USED, before RATE_EXPIRED', async () => {
    const rate = await lockRate();
    assert.equal((await create(body(rate.rateId))).status, 201);
    await expectError(await create(body(rate.rateId)), 422, 'RATE_ALREADY_USED', /^rateId: /);
    await expire(rate.rateId);
    await expectError(await create(body(rate.rateId)), 422, 'RATE_ALREADY_USED');
  });

  test('RATE_EXPIRED, before RATE_MISMATCH', async () => {
    const rate = await lockRate('PARTNER_BR');
    await expire(rate.rateId);
    await expectError(await create(body(rate.rateId)), 422, 'RATE_EXPIRED', /^rateId: expired at /);
  });

  test('RATE_MISMATCH: a rate locked for another destination member', async () => {
    const rate = await lockRate('PARTNER_BR');
    await expectError(await create(body(rate.rateId)), 422, 'RATE_MISMATCH', /^rateId: locked for PARTNER_BR/);
    assert.equal((await create(body(rate.rateId, { destinationMemberId: 'PARTNER_BR' }))).status, 201, 'still unused');
  });

  test('AMOUNT_ABOVE_CORRIDOR_MAX above the maximum; the maximum itself is fine', async () => {
    const rate = await lockRate('PARTNER_NG');
    await expectError(await create(body(rate.rateId, { destinationMemberId: 'PARTNER_NG', settlementAmt: 100000.01 })), 422,
      'AMOUNT_ABOVE_CORRIDOR_MAX', /^settlementAmt: at most 100000.00 USD/);
    assert.equal((await create(body(rate.rateId, { destinationMemberId: 'PARTNER_NG', settlementAmt: 100000 }))).status, 201);
  });
});

describe('Idempotency-Key', () => {
  test('the same request again answers the original 201 with Idempotent-Replayed; one settlement', async () => {
    const rate = await lockRate();
    const key = randomUUID();
    const first = await create(body(rate.rateId), { 'idempotency-key': key });
    assert.equal(first.status, 201);
    const original = await json(first);
    const again = await create({ executionInterval: 'IMMEDIATE', rateId: rate.rateId, settlementAmt: 1000, destinationMemberId: 'PARTNER_MX' }, { 'idempotency-key': key });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.headers.get('location'), `/v2/settlements/${String(original['settlementId'])}`);
    assert.deepEqual(await json(again), original);
    assert.equal(await countSettlements(rate.rateId), 1);
  });

  test('the same key with another request: 422 IDEMPOTENCY_KEY_REUSED, nothing done', async () => {
    const rate = await lockRate();
    const key = randomUUID();
    assert.equal((await create(body(rate.rateId), { 'idempotency-key': key })).status, 201);
    const other = await lockRate();
    await expectError(await create(body(other.rateId), { 'idempotency-key': key }), 422, 'IDEMPOTENCY_KEY_REUSED', /^Idempotency-Key: /);
    assert.equal(await countSettlements(other.rateId), 0);
  });

  test('a refusal is kept too: the retry gets it again, replayed', async () => {
    const rate = await lockRate();
    await expire(rate.rateId);
    const key = randomUUID();
    await expectError(await create(body(rate.rateId), { 'idempotency-key': key }), 422, 'RATE_EXPIRED');
    const again = await create(body(rate.rateId), { 'idempotency-key': key });
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    await expectError(again, 422, 'RATE_EXPIRED');
  });

  test('while the first request runs: 409 REQUEST_IN_PROGRESS; a claim abandoned for a minute is taken over', async () => {
    const rate = await lockRate();
    const key = randomUUID();
    const request = body(rate.rateId);
    await service.db.query(
      `INSERT INTO idempotency_keys (member_id, operation, idempotency_key, request_fingerprint, state, claimed_at, expires_at)
       VALUES ($1, 'POST /v2/settlements', $2, $3, 'IN_PROGRESS', now(), now() + interval '1 day')`, [DEMO.memberId, key, requestFingerprint(request)]);
    await expectError(await create(request, { 'idempotency-key': key }), 409, 'REQUEST_IN_PROGRESS', /^Idempotency-Key: /);
    await service.db.query(`UPDATE idempotency_keys SET claimed_at = now() - interval '61 seconds' WHERE idempotency_key = $1`, [key]);
    assert.equal((await create(request, { 'idempotency-key': key })).status, 201);
  });

  test('a key older than 24 hours is forgotten: the same key starts afresh', async () => {
    const key = randomUUID();
    assert.equal((await create(body((await lockRate()).rateId), { 'idempotency-key': key })).status, 201);
    await service.db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE idempotency_key = $1`, [key]);
    const fresh = await create(body((await lockRate()).rateId), { 'idempotency-key': key });
    assert.equal(fresh.status, 201);
    assert.equal(fresh.headers.get('idempotent-replayed'), null);
  });

  test('a malformed key: 400 naming the header', async () => {
    const rate = await lockRate();
    await expectError(await create(body(rate.rateId), { 'idempotency-key': 'k'.repeat(256) }), 400, 'VALIDATION_ERROR', /idempotency-key/i);
    await expectError(await create(body(rate.rateId), { 'idempotency-key': 'tab\tinside' }), 400, 'VALIDATION_ERROR', /idempotency-key/i);
    assert.equal(await countSettlements(rate.rateId), 0);
  });
});

describe('concurrency', () => {
  test('20 parallel settlements with one rateId: exactly one succeeds, the others RATE_ALREADY_USED', async () => {
    const rate = await lockRate();
    const responses = await Promise.all(Array.from({ length: 20 }, () => create(body(rate.rateId))));
    const statuses = responses.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, ...Array(19).fill(422)]);
    for (const response of responses.filter((r) => r.status === 422)) await expectError(response, 422, 'RATE_ALREADY_USED');
    assert.equal(await countSettlements(rate.rateId), 1);
  });

  test('20 parallel identical requests with one Idempotency-Key: one settlement, every 201 the same', async () => {
    const rate = await lockRate();
    const key = randomUUID();
    const responses = await Promise.all(Array.from({ length: 20 }, () => create(body(rate.rateId), { 'idempotency-key': key })));
    const created = await Promise.all(responses.filter((r) => r.status === 201).map((r) => json(r)));
    assert.ok(created.length >= 1);
    assert.equal(new Set(created.map((c) => c['settlementId'])).size, 1);
    for (const response of responses.filter((r) => r.status !== 201)) await expectError(response, 409, 'REQUEST_IN_PROGRESS');
    assert.equal(await countSettlements(rate.rateId), 1);
  });
});

describe('keys past 24 hours', () => {
  test('the hourly purge forgets them, and only them', async () => {
    const { purgeExpiredKeysTask } = await import('../../src/platform/idempotency.ts');
    const [old, fresh] = [randomUUID(), randomUUID()];
    assert.equal((await create(body((await lockRate()).rateId), { 'idempotency-key': old })).status, 201);
    assert.equal((await create(body((await lockRate()).rateId), { 'idempotency-key': fresh })).status, 201);
    await service.db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE idempotency_key = $1`, [old]);
    const logged: string[] = [];
    await purgeExpiredKeysTask(service.db, () => new Date())({}, { logger: { info: (m: string) => logged.push(m) } } as never);
    const { rows } = await service.db.query(`SELECT idempotency_key AS k FROM idempotency_keys WHERE idempotency_key = ANY($1)`, [[old, fresh]]);
    assert.deepEqual(rows.map((r) => r.k), [fresh]);
    assert.ok(logged.some((m) => /forgot [1-9]\d* idempotency keys/.test(m)));
  });
});
