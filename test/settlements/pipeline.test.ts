// The settlement pipeline, step by step through the sandbox `advance` control (no workers run
// here): every status move, the amounts, the ledger legs and the prefund credit, failures, and
// steps run twice or at once doing their work once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobHelpers } from 'graphile-worker';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO_2, bearer, json, token, expectError } from '../support/http.ts';
import { checkLedger } from '../../src/ledger/service.ts';
import { createPipeline } from '../../src/settlements/pipeline.ts';
import { NO_VENUES } from '../../src/settlements/venues.ts';
import { createSandboxVenues } from '../../src/settlements/sandbox-venues.ts';
import { injectFault } from '../../src/settlements/sandbox-venue-repo.ts';
import { settlementApi, settlementControls, settlementTransfers, type Json } from '../support/settlements.ts';

let service: TestService;
let auth: string;
let member: string;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  auth = await token(service.url, { scope: 'settlements' });
  member = await token(service.url, { scope: 'member' });
});
after(async () => {
  await service.stop();
});


const settle = (extra: Json = {}, destination = 'PARTNER_MX') => settlementApi(service.url, auth).settle(destination, extra);
const advance = (id: string, body?: Json, accessToken = auth) => fetch(`${service.url}/v2/sandbox/settlements/${id}/advance`, {
  method: 'POST', headers: { ...bearer(accessToken), ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}),
});
const advanced = async (id: string, body?: Json) => {
  const response = await advance(id, body);
  assert.equal(response.status, 200);
  return json(response);
};

const advanceTo = (id: string, status: string) => settlementControls(service.url, auth).advanceTo(id, status);

async function prefundMx(): Promise<number> {
  const list = await json<Array<{ memberId: string; prefundBalance: Array<{ balance: number }> }>>(
    await fetch(`${service.url}/v2/destination-members`, { headers: bearer(member) }));
  return list.find((m) => m.memberId === 'PARTNER_MX')!.prefundBalance[0]!.balance;
}

const transfersOf = (id: string) => settlementTransfers(service.db, id);

async function venueCalls(id: string): Promise<string[]> {
  const { rows } = await service.db.query(`SELECT reference FROM sandbox_venue_operations WHERE reference LIKE $1 ORDER BY created_at`, [`${id}:%`]);
  return rows.map((r) => String(r.reference).split(':')[1]!);
}

describe('a settlement\'s whole life, one step at a time', () => {
  test('S200 -> S300 -> S400 -> S600: the amount received half-up, the prefund credited once, four events, the ledger balanced', async () => {
    const prefundBefore = await prefundMx();
    const created = await settle({ settlementAmt: 1234.57 });
    const id = String(created['settlementId']);
    assert.equal((await advanced(id))['settlementStatus'], 'S300_IN_PROGRESS');
    assert.deepEqual(await transfersOf(id), [
      { reason: 'SETTLEMENT_BUY', amount: '1234570000', currency: 'USDC', debit: 'LIQUIDITY', credit: 'TREASURY' },
      { reason: 'SETTLEMENT_IN', amount: '123457', currency: 'USD', debit: 'SOURCE_FUNDS', credit: 'LIQUIDITY' },
    ], 'the source funds taken in, the stablecoin in the treasury');
    const s400 = await advanceTo(id, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS');
    assert.equal(s400['pendingAmt'], 1234.57);
    assert.equal(s400['settlementAmtReceived'], null);
    const done = await advanceTo(id, 'S600_COMPLETED');
    // settlementAmt * rate, half-up to the centavo, in exact integers
    const rateMicros = BigInt(String(created['rate']).replace('.', '').padEnd(String(created['rate']).split('.')[0]!.length + 6, '0'));
    const expectedCentavos = (123457n * rateMicros * 2n + 1_000_000n) / 2_000_000n;
    assert.equal(done['settlementAmtReceived'], Number(expectedCentavos) / 100);
    assert.equal(done['pendingAmt'], 0);
    assert.ok(Date.parse(String(done['completionTime'])) >= Date.parse(String(done['creationTime'])));
    assert.equal(await prefundMx(), (Math.round(prefundBefore * 100) + Number(expectedCentavos)) / 100);
    assert.deepEqual((await transfersOf(id)).map((t) => [t.reason, t.amount, t.currency, t.debit, t.credit]), [
      ['SETTLEMENT_BUY', '1234570000', 'USDC', 'LIQUIDITY', 'TREASURY'], ['SETTLEMENT_IN', '123457', 'USD', 'SOURCE_FUNDS', 'LIQUIDITY'],
      ['SETTLEMENT_SENT', '1234570000', 'USDC', 'TREASURY', 'IN_TRANSIT'], ['SETTLEMENT_DELIVERED', '1234570000', 'USDC', 'IN_TRANSIT', 'LIQUIDITY'],
      ['SETTLEMENT_OUT', String(expectedCentavos), 'MXN', 'LIQUIDITY', 'PREFUND'],
    ]);
    assert.deepEqual(await venueCalls(id), ['BUY', 'TRANSFER', 'SWAP', 'WITHDRAWAL'], 'each venue asked once');
    const { rows } = await service.db.query(`SELECT sequence, data->>'settlementStatus' AS status, data->>'previousStatus' AS previous FROM events WHERE resource_id = $1 ORDER BY sequence`, [id]);
    assert.deepEqual(rows.map((r) => [r.sequence, r.status, r.previous]), [
      [1, 'S200_RECEIVED', null], [2, 'S300_IN_PROGRESS', 'S200_RECEIVED'],
      [3, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS', 'S300_IN_PROGRESS'], [4, 'S600_COMPLETED', 'S400_FIAT_WITHDRAWAL_IN_PROGRESS'],
    ]);
    assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
    await expectError(await advance(id), 409, 'INVALID_STATE', /S600_COMPLETED/);
  });

  test('a scheduled settlement waits for its dueDate; advance starts it now', async () => {
    const created = await settle({ executionInterval: 'TWO_HOURS' });
    const id = String(created['settlementId']);
    const pipeline = createPipeline({ db: service.db, clock: { now: () => new Date() }, venues: NO_VENUES });
    await assert.rejects(pipeline.steps.start(id), /not yet/);
    assert.equal((await advanced(id))['settlementStatus'], 'S200_RECEIVED');
    const late = createPipeline({ db: service.db, clock: { now: () => new Date(Date.now() + 3 * 3_600_000) }, venues: NO_VENUES });
    const later = await settle({ executionInterval: 'ONE_HOUR' });
    await late.steps.start(String(later['settlementId']));
    const { rows } = await service.db.query('SELECT settlement_status AS s FROM settlements WHERE settlement_id = $1', [later['settlementId']]);
    assert.equal(rows[0].s, 'S200_RECEIVED', 'due: the job starts it');
  });
});

describe('failures', () => {
  test('fail on a scheduled settlement: S700_FAILED, nothing was taken in, nothing to return', async () => {
    const id = String((await settle({ executionInterval: 'ONE_HOUR' }))['settlementId']);
    const failed = await advanced(id, { fail: true });
    assert.equal(failed['settlementStatus'], 'S700_FAILED');
    assert.equal(failed['completionTime'], null);
    assert.equal(failed['pendingAmt'], 0);
    assert.deepEqual(await transfersOf(id), []);
    await expectError(await advance(id), 409, 'INVALID_STATE', /S700_FAILED/);
  });

  test('fail after the buy: S700_FAILED and the source funds are returned', async () => {
    const id = String((await settle({ settlementAmt: 250.5 }))['settlementId']);
    await advanced(id);
    assert.equal((await advanced(id, { fail: true }))['settlementStatus'], 'S700_FAILED');
    assert.deepEqual((await transfersOf(id)).map((t) => [t.reason, t.amount, t.debit, t.credit]), [
      ['SETTLEMENT_BUY', '250500000', 'LIQUIDITY', 'TREASURY'], ['SETTLEMENT_IN', '25050', 'SOURCE_FUNDS', 'LIQUIDITY'],
      ['SETTLEMENT_REFUND', '25050', 'LIQUIDITY', 'SOURCE_FUNDS'], ['SETTLEMENT_UNWIND', '250500000', 'TREASURY', 'LIQUIDITY'],
    ], 'the source funds returned, the stablecoin still in the treasury back in the pool');
    assert.deepEqual(await venueCalls(id), ['BUY'], 'the chain was never asked');
    const { rows } = await service.db.query('SELECT failure_reason AS reason FROM settlements WHERE settlement_id = $1', [id]);
    assert.match(rows[0].reason, /sandbox/);
  });

  test('fail during the fiat withdrawal: the stablecoin was delivered, so the settlement parks in S400 for an operator; nothing is returned', async () => {
    const prefundBefore = await prefundMx();
    const id = String((await settle({ settlementAmt: 75.25 }))['settlementId']);
    await advanceTo(id, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS');
    const parked = await advanced(id, { fail: true });
    assert.deepEqual([parked['settlementStatus'], parked['settlementAmtReceived'], parked['completionTime']], ['S400_FIAT_WITHDRAWAL_IN_PROGRESS', null, null]);
    assert.ok(!(await transfersOf(id)).some((t) => t.reason === 'SETTLEMENT_REFUND'), 'no refund: the destination member may hold the money');
    assert.deepEqual(await venueCalls(id), ['BUY', 'TRANSFER', 'SWAP'], 'the bank was never asked');
    assert.equal(await prefundMx(), prefundBefore);
    const { rows } = await service.db.query(`SELECT step, reason FROM settlement_reviews WHERE settlement_id = $1 AND resolved_at IS NULL`, [id]);
    assert.deepEqual(rows.map((r) => [r.step, r.reason]), [['WITHDRAWAL', 'FAILED_AFTER_MONEY_LEFT']]);
    const events = await service.db.query(`SELECT type FROM events WHERE resource_id = $1 AND sequence = 4`, [id]);
    assert.equal(events.rows[0].type, 'settlement.review_opened');
    assert.equal((await advanced(id))['settlementStatus'], 'S400_FIAT_WITHDRAWAL_IN_PROGRESS', 'a parked settlement does not move on its own');
  });

  test('a venue that refuses before anything moved fails the settlement; a job that used its attempts after money left parks it', async () => {
    const refusing = createPipeline({ db: service.db, clock: { now: () => new Date() }, venues: NO_VENUES });
    const helpers = (attempts: number) => ({ job: { attempts, max_attempts: 10 }, logger: { error: () => undefined } }) as unknown as JobHelpers;
    const refused = String((await settle())['settlementId']);
    await refusing.tasks['settlement.buy']!({ settlementId: refused }, helpers(1));
    const { rows } = await service.db.query('SELECT settlement_status AS s, failure_reason AS reason FROM settlements WHERE settlement_id = $1', [refused]);
    assert.deepEqual([rows[0].s, rows[0].reason], ['S700_FAILED', 'buy: no venue is connected']);
    assert.deepEqual(await transfersOf(refused), [], 'nothing was taken in');

    const sandbox = createPipeline({ db: service.db, clock: { now: () => new Date() }, venues: createSandboxVenues(service.db) });
    const flaky = String((await settle())['settlementId']);
    await advanceTo(flaky, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS');
    await advanced(flaky); // the deposit is requested
    await injectFault(service.db, `${flaky}:WITHDRAWAL`, 'depositStatus', 'TIMEOUT', 2);
    await assert.rejects(async () => sandbox.tasks['settlement.withdraw']!({ settlementId: flaky }, helpers(3)), /timed out/, 'retried while attempts remain');
    await sandbox.tasks['settlement.withdraw']!({ settlementId: flaky }, helpers(10));
    const last = await service.db.query('SELECT settlement_status AS s FROM settlements WHERE settlement_id = $1', [flaky]);
    assert.equal(last.rows[0].s, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS', 'the last attempt does not fail a settlement whose money left');
    const review = await service.db.query('SELECT step, reason FROM settlement_reviews WHERE settlement_id = $1', [flaky]);
    assert.deepEqual(review.rows.map((r) => [r.step, r.reason]), [['WITHDRAWAL', 'ATTEMPTS_EXHAUSTED']]);
    assert.ok(!(await transfersOf(flaky)).some((t) => t.reason === 'SETTLEMENT_REFUND'));
  });
});

describe('nothing twice', () => {
  test('the same step ten times at once: the venue asked once, one record, one posting', async () => {
    const id = String((await settle())['settlementId']);
    const pipeline = createPipeline({ db: service.db, clock: { now: () => new Date() }, venues: createSandboxVenues(service.db) });
    await Promise.all(Array.from({ length: 10 }, () => pipeline.steps.buy(id)));
    assert.deepEqual(await venueCalls(id), ['BUY']);
    assert.deepEqual((await transfersOf(id)).map((t) => t.reason), ['SETTLEMENT_BUY', 'SETTLEMENT_IN']);
    await Promise.all(Array.from({ length: 10 }, () => pipeline.steps.transfer(id)));
    assert.deepEqual(await venueCalls(id), ['BUY', 'TRANSFER']);
    assert.deepEqual((await transfersOf(id)).map((t) => t.reason), ['SETTLEMENT_BUY', 'SETTLEMENT_IN', 'SETTLEMENT_SENT']);
    const { rows } = await service.db.query(`SELECT step FROM settlement_steps WHERE settlement_id = $1 ORDER BY done_at, step`, [id]);
    assert.deepEqual(rows.map((r) => r.step), ['BUY_REQUESTED', 'BUY', 'TRANSFER_REQUESTED', 'TRANSFER']);
    const events = await service.db.query(`SELECT count(*)::int AS n FROM events WHERE resource_id = $1`, [id]);
    assert.equal(events.rows[0].n, 2, 'created, then S300 once');
  });
});

describe('advance refused', () => {
  test("another member's settlement, an unknown or malformed id: 404; a body with unknown fields: 400", async () => {
    const id = String((await settle())['settlementId']);
    const other = await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret, scope: 'settlements' });
    await expectError(await advance(id, undefined, other), 404, 'NOT_FOUND', /^settlementId: /);
    await expectError(await advance('6f1d2c3b-1a2b-4c3d-8e9f-0a1b2c3d4e5f'), 404, 'NOT_FOUND');
    await expectError(await advance('nope'), 404, 'NOT_FOUND');
    await expectError(await advance(id, { fail: 'yes' }), 400, 'VALIDATION_ERROR', /fail/);
    await expectError(await advance(id, { later: true }), 400, 'VALIDATION_ERROR', /later/);
    const { rows } = await service.db.query('SELECT settlement_status AS s FROM settlements WHERE settlement_id = $1', [id]);
    assert.equal(rows[0].s, 'S200_RECEIVED');
  });
});
