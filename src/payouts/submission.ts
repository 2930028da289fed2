// Sending a payout to its partner. The submission is recorded (SUBMITTING) before the call, the
// call is made with no lock held, and its answer is applied afterwards. A call without a clear
// answer, or a recorded submission that was never answered (the process died in between, found
// by the recovery sweep), puts the payout in doubt: the partner is asked by the payout id before
// anything is sent again (doubt.ts), and rails answer a repeated id as they answered the first
// time, so nothing is paid twice.
import { type Db, type Queryable } from '../platform/database/pool.ts';
import { isTransientDatabaseError, withTransaction } from '../platform/database/transaction.ts';
import type { Clock } from '../platform/clock.ts';
import { applyToLocked, changeCancellation, lockLedgerFor, noteSubmission, statusEvent } from './apply.ts';
import { applyPartnerStatus, markInDoubt, submissionAfter } from './doubt.ts';
import { parkForReview, type Alarm } from './review.ts';
import { forRail } from './for-rail.ts';
import { createBatcher } from '../platform/batcher.ts';
import { postPending } from '../ledger/service.ts';
import { findTransition, type PayoutEvent } from './lifecycle.ts';
import { requireRail, statusOfSubmit, type RailRegistry, type SubmitOutcome } from './rails/rail.ts';
import * as repo from './repo.ts';

export interface SubmissionDeps {
  db: Db;
  rails: RailRegistry;
  clock: Clock;
  partnerTimeoutMs: number;
  alarm: Alarm;
}

export { forRail } from './for-rail.ts';

/** The event a partner's answer makes of a locked payout (undefined: no change of status). Mirrors applySubmitOutcome. */
export function answerEvent(locked: repo.PayoutRow, outcome: SubmitOutcome | undefined): PayoutEvent | undefined {
  const fromAccepted = locked.payoutStatus === 'ACCP';
  if (!fromAccepted && locked.payoutStatus !== 'PNDG') return undefined;
  if (outcome === undefined || outcome.outcome === 'PENDING') return fromAccepted ? 'SUBMIT_PENDING' : undefined;
  if (outcome.outcome === 'CONFIRMED') return fromAccepted ? 'SUBMIT_CONFIRMED' : 'PARTNER_CONFIRMED';
  return 'PARTNER_REJECTED';
}

/** Statuses in which the reservation was released: a partner that pays (or may pay) contradicts them. */
const RELEASED: readonly repo.PayoutRow['payoutStatus'][] = ['RJCT', 'FAIL', 'CNCL', 'EXPD'];

/** Whether a clear answer contradicts what the payout already became. */
export function contradicts(status: repo.PayoutRow['payoutStatus'], outcome: SubmitOutcome): boolean {
  if (outcome.outcome === 'REJECTED') return status === 'PRCD' || status === 'RVSD';
  return RELEASED.includes(status);
}

/**
 * The partner's answer (undefined: no clear answer) applied to a locked payout. An answer to the
 * submission under way moves the payout; no clear answer puts it in doubt; an answer for a payout
 * that has already moved on is checked against it, and a contradiction parks it for review.
 */
export async function applySubmitOutcome(
  db: Queryable, locked: repo.PayoutRow, outcome: SubmitOutcome | undefined, now: Date, context: { check: number; alarm: Alarm },
): Promise<repo.PayoutRow> {
  if (locked.submissionState === 'IN_DOUBT') {
    // the doubt job is asking already; a clear answer that arrives meanwhile settles it
    return outcome && locked.payoutStatus === 'PNDG' ? applyPartnerStatus(db, locked, statusOfSubmit(outcome), now, context.alarm) : locked;
  }
  if (locked.submissionState !== 'SUBMITTING') {
    if (!outcome || !contradicts(locked.payoutStatus, outcome)) return locked;
    const detail = `the partner answered ${outcome.outcome} for a payout already ${locked.payoutStatus}`;
    return (await parkForReview(db, locked, { reason: 'CONTRADICTION', detail, evidence: { outcome, at: now } }, now, context.alarm)).row;
  }
  if (outcome === undefined) return markInDoubt(db, locked, now, context.check);
  const submitted = { submissionState: submissionAfter(locked, 'ANSWERED') };
  const fromAccepted = locked.payoutStatus === 'ACCP';
  if (outcome.outcome === 'PENDING') {
    const details = { ...submitted, ...(outcome.cashoutStatus ? { cashoutStatus: outcome.cashoutStatus } : {}) };
    if (!fromAccepted) return noteSubmission(db, locked, details);
    const moved = await applyToLocked(db, locked, 'SUBMIT_PENDING', details, now);
    if (!moved.ok) throw new Error(`payout ${locked.payoutId}: SUBMIT_PENDING refused from ${locked.payoutStatus}`);
    return moved.row;
  }
  const event = outcome.outcome === 'CONFIRMED' ? (fromAccepted ? 'SUBMIT_CONFIRMED' : 'PARTNER_CONFIRMED') : 'PARTNER_REJECTED';
  const details = {
    ...submitted,
    ...(outcome.outcome === 'CONFIRMED' && outcome.cashoutStatus ? { cashoutStatus: outcome.cashoutStatus } : {}),
    ...(outcome.outcome === 'REJECTED' ? { rejectReason: outcome.reason } : {}),
  };
  const moved = await applyToLocked(db, locked, event, details, now);
  if (!moved.ok) throw new Error(`payout ${locked.payoutId}: ${event} refused from ${locked.payoutStatus}`);
  if (moved.row.cancellationStatus === 'PNDG' && moved.row.payoutStatus !== 'PNDG') {
    const ended = await changeCancellation(db, moved.row, 'REFUSED');
    if (ended.ok) return ended.row;
  }
  return moved.row;
}

interface Answer {
  row: repo.PayoutRow;
  outcome: SubmitOutcome | undefined;
  /** How many questions about this payout's doubt came before (0 for a first submission). */
  check?: number;
}

/** Each payout's first answer: the same payout twice in a batch counts once, as first answered. */
function firstPerPayout(answers: Answer[]): Answer[] {
  const seen = new Set<string>();
  return answers.filter((a) => !seen.has(a.row.payoutId) && seen.add(a.row.payoutId));
}

/**
 * The common answer: a payout in its first submission (ACCP, SUBMITTING) confirmed, or taken as
 * pending. Answers what it becomes and whether its reservation is posted; undefined for any other
 * answer or state (applySubmitOutcome's cases).
 */
function commonAnswer(current: repo.PayoutRow, outcome: SubmitOutcome | undefined, now: Date): { row: repo.PayoutRow; posts: boolean } | undefined {
  if (current.submissionState !== 'SUBMITTING' || current.payoutStatus !== 'ACCP') return undefined;
  if (outcome?.outcome !== 'CONFIRMED' && outcome?.outcome !== 'PENDING') return undefined;
  const transition = findTransition(current.payoutStatus, outcome.outcome === 'CONFIRMED' ? 'SUBMIT_CONFIRMED' : 'SUBMIT_PENDING');
  if (!transition) return undefined;
  const row: repo.PayoutRow = {
    ...current,
    payoutStatus: transition.to,
    cashoutStatus: outcome.cashoutStatus ?? current.cashoutStatus,
    submissionState: 'SUBMITTED',
    completionTime: transition.to === 'PRCD' ? now : current.completionTime,
    eventSequence: current.eventSequence + 1,
  };
  return { row, posts: transition.ledger === 'POST' };
}

/**
 * Common answers for payouts as they were when claimed, written in one statement with no
 * transaction round trips (repo.writeAnsweredSubmissions: it writes only payouts still exactly as
 * claimed). Answers the payouts written; the caller applies the rest under lock, where an answer
 * for a payout that has moved on meanwhile is checked against it as usual.
 */
async function writeCommonAnswers(db: Db, answers: Answer[], now: Date): Promise<Map<string, repo.PayoutRow>> {
  const items: repo.AnsweredSubmission[] = [];
  for (const { row, outcome } of firstPerPayout(answers)) {
    const common = commonAnswer(row, outcome, now);
    if (common) items.push({ expected: row, next: common.row, event: statusEvent(common.row, 'ACCP'), posts: common.posts });
  }
  let written: Set<string>;
  try {
    written = await repo.writeAnsweredSubmissions(db, items);
  } catch (error) {
    if (!isTransientDatabaseError(error)) throw error;
    written = new Set(); // it lost a race (a deadlock): the transaction, which retries, takes them all
  }
  return new Map(items.filter((i) => written.has(i.next.payoutId)).map((i) => [i.next.payoutId, i.next]));
}

/**
 * Applies many partner answers in one transaction. The common ones (an ACCP payout confirmed, or
 * taken as pending) are written set-wise: one statement each to post, to update and to record
 * the events. Anything else goes through applySubmitOutcome, one by one, in the same transaction.
 */
export async function applyAnswers(client: Queryable, answers: Answer[], now: Date, alarm: Alarm): Promise<repo.PayoutRow[]> {
  const locked = await repo.lockPayouts(client, [...new Set(answers.map((a) => a.row.payoutId))]);
  const done = new Map<string, repo.PayoutRow>();
  const fast: Array<{ row: repo.PayoutRow; posts: boolean }> = [];
  const slow: Array<{ row: repo.PayoutRow; outcome: SubmitOutcome | undefined; check: number }> = [];
  for (const { row, outcome, check = 0 } of firstPerPayout(answers)) {
    const current = locked.get(row.payoutId);
    if (!current) throw new Error(`payout ${row.payoutId} vanished`);
    const common = commonAnswer(current, outcome, now);
    if (!common) {
      slow.push({ row: current, outcome, check });
      continue;
    }
    fast.push(common);
    done.set(row.payoutId, common.row);
  }
  // the rest one by one, the ledger accounts of all their voids locked first (ledger LOCK ORDER)
  await lockLedgerFor(client, slow.map(({ row, outcome }) => ({ row, event: answerEvent(row, outcome) })));
  for (const { row, outcome, check } of slow) done.set(row.payoutId, await applySubmitOutcome(client, row, outcome, now, { check, alarm }));
  const posted = fast.filter((f) => f.posts).map((f) => f.row.payoutId);
  if (posted.length > 0) await postPending(client, ...posted);
  await repo.writeSubmissions(client, fast.map((f) => f.row), fast.map((f) => statusEvent(f.row, 'ACCP')));
  return answers.map((a) => done.get(a.row.payoutId)!);
}

/**
 * Group-commits partner answers (see platform/batcher.ts): the common ones in one statement
 * (writeCommonAnswers), the rest, and any payout that changed since its claim, in a transaction.
 */
export function createAnswerApplier(deps: { db: Db; clock: Clock; alarm: Alarm }) {
  async function applyBatch(answers: Answer[]): Promise<repo.PayoutRow[]> {
    const now = deps.clock.now();
    const applied = await writeCommonAnswers(deps.db, answers, now);
    const rest = answers.filter((a) => !applied.has(a.row.payoutId));
    if (rest.length > 0) {
      const rows = await withTransaction(deps.db, (client) => applyAnswers(client, rest, now, deps.alarm));
      rest.forEach((a, i) => applied.set(a.row.payoutId, rows[i]!));
    }
    return answers.map((a) => applied.get(a.row.payoutId)!);
  }
  const batcher = createBatcher<Answer, repo.PayoutRow>({
    run: applyBatch,
    batchSizeMax: 100,
    concurrencyMax: 1,
  });
  return (answer: Answer) => batcher.submit(answer);
}

/**
 * Calls the partner for a payout in SUBMITTING (the intent is recorded, no lock is held) and
 * applies the answer; returns the payout as it then stands. `check` counts the questions asked
 * in an earlier doubt about it (a resend after the partner said it never received it).
 */
export async function submitAndApply(
  deps: SubmissionDeps, row: repo.PayoutRow, apply?: (answer: Answer) => Promise<repo.PayoutRow>, check = 0,
): Promise<repo.PayoutRow> {
  let outcome: SubmitOutcome | undefined;
  try {
    outcome = await requireRail(deps.rails, forRail(row)).submit(forRail(row), AbortSignal.timeout(deps.partnerTimeoutMs));
  } catch {
    outcome = undefined; // timeout or transport failure: the partner may or may not have it
  }
  if (apply) return apply({ row, outcome, check });
  const [applied] = await withTransaction(deps.db, (client) => applyAnswers(client, [{ row, outcome, check }], deps.clock.now(), deps.alarm));
  return applied!;
}
