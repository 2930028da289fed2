// In doubt is not an answer: after a partner call without a clear answer the payout stays PNDG
// with its reservation held, the partner is asked by the payout id before anything is resent,
// cancelled or released, and what cannot be settled is parked for an operator. Each gap this
// closes is pinned here against the sandbox partners (whose calls time out in this file: they
// answer after 400 ms, the service waits 100 ms).
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { expectError, json, token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { alarms, payoutJobs, recordingAlarm } from '../support/payout-jobs.ts';
import { claimSubmissions, readPayout } from '../../src/payouts/repo.ts';
import { createSandboxRails } from '../../src/payouts/rails/sandbox.ts';
import { forRail } from '../../src/payouts/for-rail.ts';
import { applyPartnerReport } from '../../src/payouts/partner-report.ts';
import { applyAnswers } from '../../src/payouts/submission.ts';
import { createPayoutProcessor } from '../../src/payouts/process-payout.ts';
import { DOUBT_CHECK_DELAYS_MS } from '../../src/payouts/doubt.ts';
import { NO_RAILS } from '../../src/payouts/rails/rail.ts';
import { withTransaction } from '../../src/platform/database/transaction.ts';
import { checkLedger } from '../../src/ledger/service.ts';

let service: TestService;
let api: ReturnType<typeof payoutApi>;
/** Jobs whose partner answers at once. */
let fast: ReturnType<typeof payoutJobs>;
/** Jobs whose partner never answers in time. */
let silent: ReturnType<typeof payoutJobs>;
before(async () => {
  service = await startTestService({ WORKERS: '0', PARTNER_TIMEOUT_MS: '100', SANDBOX_RAIL_LATENCY_MS: '400' });
  api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
  fast = payoutJobs(service.db);
  silent = payoutJobs(service.db, { latencyMs: 400, partnerTimeoutMs: 100 });
});
after(async () => {
  await service.stop();
});
beforeEach(() => {
  alarms.length = 0;
});

const deps = () => ({ db: service.db, clock: { now: () => new Date() }, alarm: recordingAlarm });

async function transfers(id: string): Promise<Record<string, number>> {
  const { rows } = await service.db.query(`SELECT state, count(*)::int AS n FROM ledger_transfers WHERE reference = $1 GROUP BY state`, [id]);
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

async function state(id: string) {
  const row = (await readPayout(service.db, id))!;
  return { payoutStatus: row.payoutStatus, submissionState: row.submissionState, cancellationStatus: row.cancellationStatus };
}

async function openReview(id: string) {
  const { rows } = await service.db.query('SELECT reason, detail FROM payout_reviews WHERE payout_id = $1 AND resolved_at IS NULL', [id]);
  return rows[0] as { reason: string; detail: string } | undefined;
}

async function reviewEvents(id: string) {
  const { rows } = await service.db.query(`SELECT data FROM events WHERE resource_id = $1 AND type = 'payout.review_status_changed' ORDER BY sequence`, [id]);
  return rows.map((r) => r.data as Record<string, unknown>);
}

/** A payout whose process call timed out: PNDG, in doubt, the partner never got it. */
async function inDoubt(provider = 'MX_SPEI'): Promise<string> {
  const id = String((await api.created(payoutBody(provider)))['payoutId']);
  assert.equal((await json(await api.process(id)))['payoutStatus'], 'PNDG');
  assert.deepEqual(await state(id), { payoutStatus: 'PNDG', submissionState: 'IN_DOUBT', cancellationStatus: null });
  return id;
}

/** The partner receives the payout (its answer to us is lost). */
async function partnerReceives(id: string) {
  const row = (await readPayout(service.db, id))!;
  return createSandboxRails({ db: service.db }).railFor(forRail(row))!.submit(forRail(row), AbortSignal.timeout(2000));
}

const LEDGER_OK = { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] };

describe('a timeout, then a cancel (the money-losing path before)', () => {
  test('the cancel job leaves a payout in doubt alone: the reservation is held', async () => {
    const id = await inDoubt();
    assert.equal((await api.cancel(id)).status, 202);
    await fast.cancel(id);
    assert.deepEqual(await state(id), { payoutStatus: 'PNDG', submissionState: 'IN_DOUBT', cancellationStatus: 'PNDG' });
    assert.deepEqual(await transfers(id), { PENDING: 2 });
  });

  test('the partner never got it: cancelled there first (which blocks the id), then CNCL and released; a late arrival is refused', async () => {
    const id = await inDoubt();
    assert.equal((await api.cancel(id)).status, 202);
    await fast.resolveDoubt(id);
    assert.deepEqual(await state(id), { payoutStatus: 'CNCL', submissionState: 'SUBMITTED', cancellationStatus: 'PRCD' });
    assert.deepEqual(await transfers(id), { VOIDED: 2 });
    // the original request, delayed in the network, reaches the partner now: it is refused, never paid
    assert.deepEqual(await partnerReceives(id), { outcome: 'REJECTED', reason: 'Cancelled before it was received' });
    const { rows } = await service.db.query('SELECT outcome, cancelled FROM sandbox_rail_submissions WHERE payout_id = $1', [id]);
    assert.deepEqual(rows, [{ outcome: null, cancelled: true }]);
    // and the recovery sweep, however late, sends nothing
    await payoutJobs(service.db, { nowMs: () => Date.now() + 3_600_000 }).recoverSubmissions();
    assert.equal((await api.record(id))['payoutStatus'], 'CNCL');
    assert.deepEqual(await checkLedger(service.db), LEDGER_OK);
  });

  test('the partner got it and paid: PRCD, the cancellation refused, the reservation posted', async () => {
    const id = await inDoubt();
    assert.deepEqual(await partnerReceives(id), { outcome: 'CONFIRMED' });
    assert.equal((await api.cancel(id)).status, 202);
    await fast.resolveDoubt(id);
    assert.deepEqual(await state(id), { payoutStatus: 'PRCD', submissionState: 'SUBMITTED', cancellationStatus: 'RJCT' });
    assert.deepEqual(await transfers(id), { POSTED: 2 });
  });

  test('the partner got it and rejected it: RJCT, released', async () => {
    const id = await inDoubt();
    await service.db.query(`UPDATE payouts SET beneficiary = beneficiary || '{"lastName": "REJECT"}' WHERE payout_id = $1`, [id]);
    await partnerReceives(id);
    await fast.resolveDoubt(id);
    assert.deepEqual(await state(id), { payoutStatus: 'RJCT', submissionState: 'SUBMITTED', cancellationStatus: null });
    assert.deepEqual(await transfers(id), { VOIDED: 2 });
  });
});

describe('a partner that cannot be asked', () => {
  test('each unanswered question schedules the next, later; after the last the payout is parked, reservation held, alarm and event', async () => {
    const id = await inDoubt();
    await silent.resolveDoubt(id, 0);
    const next = await service.db.query(
      `SELECT j.payload, j.run_at > now() + interval '3 seconds' AS later FROM graphile_worker._private_jobs j WHERE j.key = $1`, [`payout-doubt:${id}`]);
    assert.deepEqual(next.rows, [{ payload: { payoutId: id, check: 1 }, later: true }]);
    assert.equal(await openReview(id), undefined);
    await silent.resolveDoubt(id, DOUBT_CHECK_DELAYS_MS.length - 1);
    assert.equal((await openReview(id))?.reason, 'STATUS_UNKNOWN');
    assert.deepEqual(await state(id), { payoutStatus: 'PNDG', submissionState: 'IN_DOUBT', cancellationStatus: null });
    assert.deepEqual(await transfers(id), { PENDING: 2 });
    assert.equal(alarms.length, 1);
    assert.equal(alarms[0]!['alarm'], 'PAYOUT_PARKED');
    const events = await reviewEvents(id);
    assert.deepEqual(events.map((e) => [e['reviewStatus'], e['reviewReason'], e['payoutStatus']]), [['OPEN', 'STATUS_UNKNOWN', 'PNDG']]);
    // parked: nothing automatic touches it, even a partner that answers again
    await fast.resolveDoubt(id, 0);
    assert.deepEqual(await state(id), { payoutStatus: 'PNDG', submissionState: 'IN_DOUBT', cancellationStatus: null });
  });

  test('a cancellation the partner never settles: retried, then parked on the job\'s last attempt, reservation held', async () => {
    const id = String((await api.created(payoutBody('MX_CASH')))['payoutId']);
    await api.process(id);
    await fast.resolveDoubt(id); // the partner holds it, pending pickup
    assert.deepEqual(await state(id), { payoutStatus: 'PNDG', submissionState: 'SUBMITTED', cancellationStatus: null });
    assert.equal((await api.cancel(id)).status, 202);
    await assert.rejects(silent.cancel(id), { name: 'RetryLater' });
    assert.equal(await openReview(id), undefined);
    await silent.cancelLastAttempt(id);
    assert.equal((await openReview(id))?.reason, 'CANCEL_UNKNOWN');
    assert.deepEqual(await state(id), { payoutStatus: 'PNDG', submissionState: 'SUBMITTED', cancellationStatus: 'PNDG' });
    assert.deepEqual(await transfers(id), { PENDING: 2 });
  });
});

describe('reports and answers while a submission is under way, or after it ended', () => {
  async function claimed(): Promise<string> {
    const id = String((await api.created(payoutBody()))['payoutId']);
    const row = (await readPayout(service.db, id))!;
    assert.ok((await claimSubmissions(service.db, [{ payoutId: id, memberId: row.sourceMemberId }], new Date()))[0]);
    return id;
  }

  test('a rejection reported while the submission is under way waits for its answer (409 in the sandbox, a retry for a partner)', async () => {
    const id = await claimed();
    await expectError(await api.simulate(id, { payoutStatus: 'RJCT' }), 409, 'INVALID_STATE', /submission to the partner is under way/);
    const result = await applyPartnerReport(deps(), id, { payoutStatus: 'RJCT' }, 'PARTNER');
    assert.equal(result.ok ? 'applied' : result.error, 'IN_FLIGHT');
    assert.deepEqual(await transfers(id), { PENDING: 2 });
  });

  test('a report about a payout in doubt is the partner\'s word: applied, the doubt ends', async () => {
    const id = await inDoubt('MX_CASH');
    const result = await applyPartnerReport(deps(), id, { payoutStatus: 'PRCD' }, 'PARTNER');
    assert.ok(result.ok);
    assert.deepEqual(await state(id), { payoutStatus: 'PRCD', submissionState: 'SUBMITTED', cancellationStatus: null });
    assert.equal((await api.record(id))['cashoutStatus'], 'PAID');
  });

  test('a paid answer for a cancelled payout parks it for review with an alarm (it was dropped before)', async () => {
    const id = await inDoubt();
    await api.cancel(id);
    await fast.resolveDoubt(id);
    assert.equal((await api.record(id))['payoutStatus'], 'CNCL');
    const row = (await readPayout(service.db, id))!;
    await withTransaction(service.db, (client) => applyAnswers(client, [{ row, outcome: { outcome: 'CONFIRMED' } }], new Date(), recordingAlarm));
    const review = await openReview(id);
    assert.equal(review?.reason, 'CONTRADICTION');
    assert.match(review!.detail, /answered CONFIRMED for a payout already CNCL/);
    assert.equal(alarms.length, 1);
    assert.equal((await reviewEvents(id))[0]!['reviewStatus'], 'OPEN');
  });

  test('from a partner: a report contradicting a final payout parks it; one agreeing with it changes nothing', async () => {
    const rejected = String((await api.created(payoutBody('MX_SPEI', { beneficiary: { firstName: 'A', lastName: 'REJECT', accountNumber: '032180000118359719' } })))['payoutId']);
    await api.process(rejected);
    await fast.resolveDoubt(rejected);
    assert.equal((await api.record(rejected))['payoutStatus'], 'RJCT');
    const again = await applyPartnerReport(deps(), rejected, { payoutStatus: 'FAIL' }, 'PARTNER');
    assert.equal(again.ok ? 'applied' : again.error, 'INVALID_STATE');
    assert.equal(await openReview(rejected), undefined);
    const paid = await applyPartnerReport(deps(), rejected, { payoutStatus: 'PRCD' }, 'PARTNER');
    assert.equal(paid.ok ? 'applied' : paid.error, 'PARKED');
    assert.equal((await openReview(rejected))?.reason, 'CONTRADICTION');
    assert.deepEqual(await transfers(rejected), { VOIDED: 2 });
  });

  test('from a partner: a report about a payout never sent parks it; parked, it neither expires nor processes', async () => {
    const id = String((await api.created(payoutBody()))['payoutId']);
    const result = await applyPartnerReport(deps(), id, { payoutStatus: 'PRCD' }, 'PARTNER');
    assert.equal(result.ok ? 'applied' : result.error, 'PARKED');
    assert.match((await openReview(id))!.detail, /never sent/);
    await payoutJobs(service.db, { nowMs: () => Date.now() + 2 * 86_400_000 }).expireDue();
    assert.equal((await api.record(id))['payoutStatus'], 'ACCP');
    await expectError(await api.process(id), 409, 'INVALID_STATE');
    assert.deepEqual(await transfers(id), { PENDING: 2 });
  });
});

describe('process and expiry', () => {
  test('process after expiryTime, before the sweep ran: 409 INVALID_STATE naming expiryTime, nothing sent', async () => {
    const id = String((await api.created(payoutBody()))['payoutId']);
    await service.db.query(`UPDATE payouts SET expiry_time = now() - interval '1 second' WHERE payout_id = $1`, [id]);
    await expectError(await api.process(id), 409, 'INVALID_STATE', /^expiryTime: .* has passed$/);
    assert.deepEqual(await state(id), { payoutStatus: 'ACCP', submissionState: 'NONE', cancellationStatus: null });
    const sent = await service.db.query('SELECT count(*)::int AS n FROM sandbox_rail_submissions WHERE payout_id = $1', [id]);
    assert.equal(sent.rows[0].n, 0);
  });

  test('a claim released for want of a rail puts the payout back into the expiry queue (the sweep may have passed it over)', async () => {
    const id = String((await api.created(payoutBody()))['payoutId']);
    await service.db.query('DELETE FROM payout_expiry_queue WHERE payout_id = $1', [id]);
    const processor = createPayoutProcessor({ db: service.db, rails: NO_RAILS, clock: { now: () => new Date() }, partnerTimeoutMs: 100, alarm: recordingAlarm });
    const row = (await readPayout(service.db, id))!;
    assert.equal((await processor.process(row.sourceMemberId, id)).ok, false);
    const queued = await service.db.query('SELECT count(*)::int AS n FROM payout_expiry_queue WHERE payout_id = $1', [id]);
    assert.equal(queued.rows[0].n, 1);
    await payoutJobs(service.db, { nowMs: () => Date.now() + 2 * 86_400_000 }).expireDue();
    assert.equal((await api.record(id))['payoutStatus'], 'EXPD');
    assert.deepEqual(await transfers(id), { VOIDED: 2 });
  });
});

test('after all of it the ledger balances', async () => {
  assert.deepEqual(await checkLedger(service.db), LEDGER_OK);
});
