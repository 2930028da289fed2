// Payouts parked for review, and their resolution by an operator (`npm run admin -- payouts
// reviews | resolve`): each resolution's effect on the payout, its reservation and its events,
// and the refusals.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, tempDataDir, type TestService } from '../support/service.ts';
import { adminCli } from '../support/admin.ts';
import { json, token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { payoutJobs, recordingAlarm } from '../support/payout-jobs.ts';
import { readPayout } from '../../src/payouts/repo.ts';
import { resolveReview } from '../../src/payouts/review.ts';
import { DOUBT_CHECK_DELAYS_MS } from '../../src/payouts/doubt.ts';
import { applyAnswers } from '../../src/payouts/submission.ts';
import { withTransaction } from '../../src/platform/database/transaction.ts';
import { balances, checkLedger } from '../../src/ledger/service.ts';
import { accountKey, prefundAccount } from '../../src/ledger/accounts.ts';

let dataDir: string;
let service: TestService;
let api: ReturnType<typeof payoutApi>;
let fast: ReturnType<typeof payoutJobs>;
let silent: ReturnType<typeof payoutJobs>;
before(async () => {
  dataDir = await tempDataDir();
  service = await startTestService({ DATA_DIR: dataDir, WORKERS: '0', PARTNER_TIMEOUT_MS: '100', SANDBOX_RAIL_LATENCY_MS: '400' });
  api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
  fast = payoutJobs(service.db);
  silent = payoutJobs(service.db, { latencyMs: 400, partnerTimeoutMs: 100 });
});
after(async () => {
  await service.stop();
});

const { admin } = adminCli(() => dataDir);

/** A payout in doubt whose partner could not be asked: parked (STATUS_UNKNOWN). Answers its review id. */
async function parkedInDoubt(provider = 'MX_SPEI'): Promise<{ payoutId: string; reviewId: string }> {
  const payoutId = String((await api.created(payoutBody(provider)))['payoutId']);
  await api.process(payoutId);
  await silent.resolveDoubt(payoutId, DOUBT_CHECK_DELAYS_MS.length - 1);
  const { rows } = await service.db.query('SELECT review_id FROM payout_reviews WHERE payout_id = $1 AND resolved_at IS NULL', [payoutId]);
  assert.equal(rows.length, 1);
  return { payoutId, reviewId: rows[0].review_id };
}

async function transfers(id: string): Promise<Record<string, number>> {
  const { rows } = await service.db.query(`SELECT state, count(*)::int AS n FROM ledger_transfers WHERE reference = $1 GROUP BY state`, [id]);
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

async function reviewStatuses(id: string) {
  const { rows } = await service.db.query(`SELECT data FROM events WHERE resource_id = $1 AND type = 'payout.review_status_changed' ORDER BY sequence`, [id]);
  return rows.map((r) => `${r.data.reviewStatus}${r.data.resolution ? ` ${r.data.resolution}` : ''}`);
}

const resolve = (reviewId: string, resolution: 'PAID' | 'NOT_PAID' | 'RETRY' | 'ACKNOWLEDGED') =>
  resolveReview({ db: service.db, clock: { now: () => new Date() } }, reviewId, resolution, 'test-operator', 'checked with the partner');

describe('the CLI', () => {
  test('payouts reviews lists the open ones; resolve --as PAID posts the reservation and closes the review with its event', async () => {
    const { payoutId, reviewId } = await parkedInDoubt();
    const listed = await admin(['payouts', 'reviews', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const reviews = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    assert.ok(reviews.some((r) => r['reviewId'] === reviewId && r['payoutId'] === payoutId && r['reason'] === 'STATUS_UNKNOWN'));
    const resolved = await admin(['payouts', 'resolve', reviewId, '--as', 'paid', '--note', 'bank statement line 42', '--actor', 'alice', '--json']);
    assert.equal(resolved.code, 0, resolved.stderr);
    const answer = JSON.parse(resolved.stdout) as Record<string, unknown>;
    assert.deepEqual([answer['payoutStatus'], answer['resolution'], answer['resolvedBy'], answer['note']], ['PRCD', 'PAID', 'alice', 'bank statement line 42']);
    assert.deepEqual(await transfers(payoutId), { POSTED: 2 });
    assert.equal((await readPayout(service.db, payoutId))!.submissionState, 'SUBMITTED');
    assert.deepEqual(await reviewStatuses(payoutId), ['OPEN', 'RESOLVED PAID']);
    const open = JSON.parse((await admin(['payouts', 'reviews', '--json'])).stdout) as Array<Record<string, unknown>>;
    assert.ok(!open.some((r) => r['reviewId'] === reviewId), 'no longer open');
    const all = JSON.parse((await admin(['payouts', 'reviews', '--all', '--json'])).stdout) as Array<Record<string, unknown>>;
    assert.ok(all.some((r) => r['reviewId'] === reviewId && r['resolution'] === 'PAID'));
  });

  test('refusals: resolved twice (exit 1), an unknown review (exit 1), no note or a bad resolution (exit 2, usage)', async () => {
    const { reviewId } = await parkedInDoubt();
    assert.equal((await admin(['payouts', 'resolve', reviewId, '--as', 'PAID', '--note', 'x'])).code, 0);
    const twice = await admin(['payouts', 'resolve', reviewId, '--as', 'PAID', '--note', 'x']);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /^error: ALREADY_RESOLVED/);
    const unknown = await admin(['payouts', 'resolve', '6f1d4c1a-0000-4000-8000-000000000000', '--as', 'PAID', '--note', 'x']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^error: NOT_FOUND: reviewId/);
    const noNote = await admin(['payouts', 'resolve', reviewId, '--as', 'PAID']);
    assert.equal(noNote.code, 2);
    assert.match(noNote.stderr, /--note is required/);
    const bad = await admin(['payouts', 'resolve', reviewId, '--as', 'MAYBE', '--note', 'x']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--as is one of PAID, NOT_PAID, RETRY, ACKNOWLEDGED/);
  });
});

describe('each resolution', () => {
  test('NOT_PAID with a cancellation pending: CNCL, released, cancellation PRCD', async () => {
    const { payoutId, reviewId } = await parkedInDoubt();
    assert.equal((await api.cancel(payoutId)).status, 202);
    const result = await resolve(reviewId, 'NOT_PAID');
    assert.ok(result.ok);
    const record = await api.record(payoutId);
    assert.deepEqual([record['payoutStatus'], record['payoutCancellationStatus']], ['CNCL', 'PRCD']);
    assert.deepEqual(await transfers(payoutId), { VOIDED: 2 });
  });

  test('NOT_PAID without one: FAIL with the review as its reason, released', async () => {
    const { payoutId, reviewId } = await parkedInDoubt();
    assert.ok((await resolve(reviewId, 'NOT_PAID')).ok);
    const record = await api.record(payoutId);
    assert.deepEqual([record['payoutStatus'], record['rejectReason']], ['FAIL', 'Not paid (established by review)']);
    assert.deepEqual(await transfers(payoutId), { VOIDED: 2 });
  });

  test('RETRY hands it back to the doubt job, which asks the partner again', async () => {
    const { payoutId, reviewId } = await parkedInDoubt();
    assert.ok((await resolve(reviewId, 'RETRY')).ok);
    const job = await service.db.query('SELECT payload FROM graphile_worker._private_jobs WHERE key = $1', [`payout-doubt:${payoutId}`]);
    assert.deepEqual(job.rows, [{ payload: { payoutId, check: 0 } }]);
    await fast.resolveDoubt(payoutId, 0);
    assert.equal((await api.record(payoutId))['payoutStatus'], 'PRCD');
    assert.deepEqual(await transfers(payoutId), { POSTED: 2 });
  });

  test('PAID for a cancelled payout the partner paid anyway: charged again to the prefund (amount and fee), PRCD', async () => {
    const payoutId = String((await api.created(payoutBody('MX_SPEI', { payoutAmt: 1000 })))['payoutId']); // fee 20.00
    await api.process(payoutId);
    await api.cancel(payoutId);
    await fast.resolveDoubt(payoutId); // never received: cancelled there, released here
    assert.equal((await api.record(payoutId))['payoutStatus'], 'CNCL');
    const row = (await readPayout(service.db, payoutId))!;
    await withTransaction(service.db, (client) => applyAnswers(client, [{ row, outcome: { outcome: 'CONFIRMED' } }], new Date(), recordingAlarm));
    const { rows } = await service.db.query('SELECT review_id FROM payout_reviews WHERE payout_id = $1 AND resolved_at IS NULL', [payoutId]);
    const spec = prefundAccount('DEMO_SOURCE_1', 'PARTNER_MX', 'MXN');
    const before = (await balances(service.db, [spec])).get(accountKey(spec))!;
    const result = await resolve(rows[0].review_id, 'PAID');
    assert.ok(result.ok);
    assert.equal(result.payoutStatus, 'PRCD');
    const after = (await balances(service.db, [spec])).get(accountKey(spec))!;
    assert.equal(before.balance - after.balance, 102_000n);
    assert.deepEqual(await transfers(payoutId), { VOIDED: 2, POSTED: 2 });
    assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
  });

  test('a resolution that does not fit the payout is refused and changes nothing', async () => {
    const { payoutId, reviewId } = await parkedInDoubt();
    assert.ok((await resolve(reviewId, 'PAID')).ok); // PRCD now; open another review by a contradicting answer
    const row = (await readPayout(service.db, payoutId))!;
    await withTransaction(service.db, (client) => applyAnswers(client, [{ row, outcome: { outcome: 'REJECTED', reason: 'closed' } }], new Date(), recordingAlarm));
    const { rows } = await service.db.query('SELECT review_id FROM payout_reviews WHERE payout_id = $1 AND resolved_at IS NULL', [payoutId]);
    const refused = await resolve(rows[0].review_id, 'RETRY');
    assert.deepEqual(refused.ok ? 'resolved' : [refused.error, refused.detail], ['NOT_APPLICABLE', 'resolution RETRY does not apply to a payout in PRCD']);
    assert.equal((await json(await api.status(payoutId)))['payoutStatus'], 'PRCD');
    assert.ok((await resolve(rows[0].review_id, 'ACKNOWLEDGED')).ok);
  });
});
