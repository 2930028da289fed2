// process records the submission before calling the partner. A timeout, or a crash before the
// answer was applied, puts the payout in doubt: its partner is asked by the payout id, and only
// a payout the partner never received is sent again (with the same id). It is paid once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { json, token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { addedJobs, payoutJobs, recordingAlarm } from '../support/payout-jobs.ts';
import { claimSubmissions, readPayout } from '../../src/payouts/repo.ts';

const claimSubmission = async (db: TestService['db'], payoutId: string, memberId: string, now: Date) =>
  (await claimSubmissions(db, [{ payoutId, memberId }], now))[0];
import { createSandboxRails } from '../../src/payouts/rails/sandbox.ts';
import { forRail } from '../../src/payouts/submission.ts';
import { checkLedger } from '../../src/ledger/service.ts';

let service: TestService;
let api: ReturnType<typeof payoutApi>;
let jobs: ReturnType<typeof payoutJobs>;
before(async () => {
  // partners answer after 400 ms, but the service waits only 100 ms
  service = await startTestService({ WORKERS: '0', PARTNER_TIMEOUT_MS: '100', SANDBOX_RAIL_LATENCY_MS: '400' });
  api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
  jobs = payoutJobs(service.db);
});
after(async () => {
  await service.stop();
});

async function postedTransfers(id: string): Promise<Record<string, number>> {
  const { rows } = await service.db.query(`SELECT state, count(*)::int AS n FROM ledger_transfers WHERE reference = $1 GROUP BY state`, [id]);
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

async function memberOf(id: string) {
  return (await readPayout(service.db, id))!.sourceMemberId;
}

describe('submission recovery: in doubt, the partner is asked before anything is sent again', () => {
  test('a partner that does not answer in time: PNDG and in doubt, reservation held; asked, it never got it: sent again, PRCD once', async () => {
    const id = String((await api.created(payoutBody()))['payoutId']);
    const answer = await api.process(id);
    assert.equal(answer.status, 200);
    assert.equal((await json(answer))['payoutStatus'], 'PNDG');
    assert.equal((await readPayout(service.db, id))!.submissionState, 'IN_DOUBT');
    assert.deepEqual(await postedTransfers(id), { PENDING: 2 }, 'the reservation is held');
    const doubt = await service.db.query(
      `SELECT t.identifier AS task_identifier, j.payload FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE j.key = $1`,
      [`payout-doubt:${id}`],
    );
    assert.deepEqual(doubt.rows, [{ task_identifier: 'payout.resolve_doubt', payload: { payoutId: id, check: 0 } }], 'the question to the partner is scheduled');
    const sweep = await service.db.query(`SELECT task_identifier FROM graphile_worker.jobs WHERE key = 'payout-recovery-sweep'`);
    assert.deepEqual(sweep.rows, [{ task_identifier: 'payout.recover_submissions' }], 'the recovery sweep is scheduled from boot');
    assert.equal((await api.process(id)).status, 200, 'process on PNDG answers the current state');
    await jobs.resolveDoubt(id);
    const record = await api.record(id);
    assert.equal(record['payoutStatus'], 'PRCD');
    assert.equal((await readPayout(service.db, id))!.submissionState, 'SUBMITTED');
    assert.deepEqual(await postedTransfers(id), { POSTED: 2 });
    const { rows } = await service.db.query('SELECT submissions FROM sandbox_rail_submissions WHERE payout_id = $1', [id]);
    assert.deepEqual(rows, [{ submissions: 1 }], 'the timed-out call never reached the partner; the resend did, once');
  });

  test('a crash after recording the submission, before the partner call: the sweep puts it in doubt, the partner never got it, it is sent', async () => {
    const id = String((await api.created(payoutBody()))['payoutId']);
    assert.ok(await claimSubmission(service.db, id, await memberOf(id), new Date()));
    await payoutJobs(service.db, { nowMs: () => Date.now() - 60_000 }).recoverSubmissions();
    assert.equal((await readPayout(service.db, id))!.submissionState, 'SUBMITTING', 'not due yet: it may still be under way');
    addedJobs.length = 0;
    await payoutJobs(service.db, { nowMs: () => Date.now() + 5_000 }).recoverSubmissions();
    assert.equal(addedJobs.at(-1)?.jobKey, 'payout-recovery-sweep', 'the sweep schedules its next run');
    const row = await readPayout(service.db, id);
    assert.deepEqual([row!.payoutStatus, row!.submissionState], ['PNDG', 'IN_DOUBT']);
    await jobs.resolveDoubt(id);
    assert.equal((await api.record(id))['payoutStatus'], 'PRCD');
    const { rows } = await service.db.query('SELECT submissions FROM sandbox_rail_submissions WHERE payout_id = $1', [id]);
    assert.deepEqual(rows, [{ submissions: 1 }]);
  });

  test('a crash after the partner call, before its answer was applied: the partner is asked and its answer applied, nothing is resent', async () => {
    const id = String((await api.created(payoutBody()))['payoutId']);
    const claimed = await claimSubmission(service.db, id, await memberOf(id), new Date());
    assert.ok(claimed);
    const rails = createSandboxRails({ db: service.db });
    assert.deepEqual(await rails.railFor(forRail(claimed))!.submit(forRail(claimed), AbortSignal.timeout(1000)), { outcome: 'CONFIRMED' });
    await jobs.finishSubmission(id); // a job left by an earlier version: it too only puts the payout in doubt
    assert.equal((await readPayout(service.db, id))!.submissionState, 'IN_DOUBT');
    await jobs.resolveDoubt(id);
    await jobs.resolveDoubt(id); // and once more: nothing changes
    assert.equal((await api.record(id))['payoutStatus'], 'PRCD');
    const { rows } = await service.db.query('SELECT submissions, outcome FROM sandbox_rail_submissions WHERE payout_id = $1', [id]);
    assert.deepEqual(rows, [{ submissions: 1, outcome: { outcome: 'CONFIRMED' } }], 'the partner was asked, not sent the payout again');
    assert.deepEqual(await postedTransfers(id), { POSTED: 2 });
    const events = await service.db.query('SELECT type, data->>\'payoutStatus\' AS status FROM events WHERE resource_id = $1 ORDER BY sequence', [id]);
    assert.deepEqual(events.rows.map((r) => r.status), ['ACCP', 'PNDG', 'PRCD']);
    assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
  });

  test('a payout being submitted does not expire', async () => {
    const id = String((await api.created(payoutBody()))['payoutId']);
    await claimSubmission(service.db, id, await memberOf(id), new Date());
    await payoutJobs(service.db, { nowMs: () => Date.now() + 2 * 86_400_000 }).expireDue();
    assert.equal((await api.record(id))['payoutStatus'], 'ACCP');
  });
});

describe('answers applied together', () => {
  test('one transaction for mixed answers: the fast ones set-wise, the rest one by one, duplicates once', async () => {
    const make = async (provider: string, lastName = 'Lopez') => {
      const body = payoutBody(provider);
      (body['beneficiary'] as Record<string, unknown>)['lastName'] = lastName;
      const id = String((await api.created(body))['payoutId']);
      return (await claimSubmission(service.db, id, await memberOf(id), new Date()))!;
    };
    const confirmed = await make('MX_SPEI');
    const rejected = await make('MX_SPEI');
    const pending = await make('MX_CASH');
    const { withTransaction } = await import('../../src/platform/database/transaction.ts');
    const { applyAnswers } = await import('../../src/payouts/submission.ts');
    const rows = await withTransaction(service.db, (client) => applyAnswers(client, [
      { row: confirmed, outcome: { outcome: 'CONFIRMED' } },
      { row: confirmed, outcome: { outcome: 'CONFIRMED' } },
      { row: rejected, outcome: { outcome: 'REJECTED', reason: 'closed' } },
      { row: pending, outcome: { outcome: 'PENDING', cashoutStatus: 'READY_FOR_PICKUP' } },
    ], new Date(), recordingAlarm));
    assert.deepEqual(rows.map((r) => r.payoutStatus), ['PRCD', 'PRCD', 'RJCT', 'PNDG']);
    assert.deepEqual(await postedTransfers(confirmed.payoutId), { POSTED: 2 });
    assert.deepEqual(await postedTransfers(rejected.payoutId), { VOIDED: 2 });
    assert.deepEqual(await postedTransfers(pending.payoutId), { PENDING: 2 });
    assert.deepEqual(await json(await api.status(pending.payoutId)), { payoutStatus: 'PNDG', cashoutStatus: 'READY_FOR_PICKUP' });
    const events = await service.db.query(`SELECT resource_id, count(*)::int AS n FROM events WHERE resource_id = ANY($1) GROUP BY resource_id`, [[confirmed.payoutId, rejected.payoutId, pending.payoutId]]);
    for (const row of events.rows) assert.equal(row.n, 2, `${row.resource_id} has one creation and one status event`);
    assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
  });
});

describe('no connected partner (production until a rail exists)', () => {
  test('process answers NO_RAIL (503 on the wire), sends nothing, and leaves the payout as it was', async () => {
    const { createPayoutProcessor } = await import('../../src/payouts/process-payout.ts');
    const { NO_RAILS } = await import('../../src/payouts/rails/rail.ts');
    const id = String((await api.created(payoutBody()))['payoutId']);
    const processor = createPayoutProcessor({ db: service.db, rails: NO_RAILS, clock: { now: () => new Date() }, partnerTimeoutMs: 1000, alarm: recordingAlarm });
    const result = await processor.process(await memberOf(id), id);
    assert.deepEqual(result, { ok: false, error: 'NO_RAIL', detail: 'payoutProviderId: MX_SPEI has no connected partner' });
    const row = await readPayout(service.db, id);
    assert.deepEqual([row!.payoutStatus, row!.submissionState, row!.initiateTime], ['ACCP', 'NONE', null]);
    const sent = await service.db.query('SELECT count(*)::int AS n FROM sandbox_rail_submissions WHERE payout_id = $1', [id]);
    assert.equal(sent.rows[0].n, 0);
  });
});
