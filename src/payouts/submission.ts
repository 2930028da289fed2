// Sending a payout to its partner. The submission is recorded (SUBMITTING) before the call, the
// call is made with no lock held, and its answer is applied afterwards. If the process dies in
// between, the finish-submission job sends the same payout id again; rails answer a repeated id
// as they answered the first time, so nothing is paid twice.
import { type Db, type Queryable } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import type { Clock } from '../platform/clock.ts';
import { applyToLocked, lockLedgerFor, noteSubmission, statusEvent } from './apply.ts';
import { createBatcher } from '../platform/batcher.ts';
import { postPending } from '../ledger/service.ts';
import { insertEvents } from '../events/repo.ts';
import { findTransition, type PayoutEvent } from './lifecycle.ts';
import { requireRail, type PayoutForRail, type RailRegistry, type SubmitOutcome } from './rails/rail.ts';
import * as repo from './repo.ts';

export interface SubmissionDeps {
  db: Db;
  rails: RailRegistry;
  clock: Clock;
  partnerTimeoutMs: number;
}

export const forRail = (row: repo.PayoutRow): PayoutForRail => ({
  payoutId: row.payoutId,
  payoutProviderId: row.payoutProviderId,
  payoutMethod: row.payoutMethod,
  destinationCcy: row.destinationCcy,
  payoutAmt: row.payoutAmt,
  sender: row.sender,
  beneficiary: row.beneficiary,
});

/** The event a partner's answer makes of a locked payout (undefined: no change of status). Mirrors applySubmitOutcome. */
export function answerEvent(locked: repo.PayoutRow, outcome: SubmitOutcome | undefined): PayoutEvent | undefined {
  const fromAccepted = locked.payoutStatus === 'ACCP';
  if (!fromAccepted && locked.payoutStatus !== 'PNDG') return undefined;
  if (outcome === undefined || outcome.outcome === 'PENDING') return fromAccepted ? 'SUBMIT_PENDING' : undefined;
  if (outcome.outcome === 'CONFIRMED') return fromAccepted ? 'SUBMIT_CONFIRMED' : 'PARTNER_CONFIRMED';
  return 'PARTNER_REJECTED';
}

/** The partner's answer (undefined: no answer in time) applied to a locked payout. */
export async function applySubmitOutcome(db: Queryable, locked: repo.PayoutRow, outcome: SubmitOutcome | undefined, now: Date): Promise<repo.PayoutRow> {
  const inFlight = locked.payoutStatus === 'ACCP' || locked.payoutStatus === 'PNDG';
  if (!inFlight) return noteSubmission(db, locked, { submissionState: 'SUBMITTED' });
  if (outcome === undefined) {
    // with the partner, outcome unknown: pending, and the job will ask again
    if (locked.payoutStatus === 'PNDG') return locked;
    const moved = await applyToLocked(db, locked, 'SUBMIT_PENDING', {}, now);
    return moved.ok ? moved.row : locked;
  }
  const submitted = { submissionState: 'SUBMITTED' as const };
  const fromAccepted = locked.payoutStatus === 'ACCP';
  if (outcome.outcome === 'PENDING') {
    const details = { ...submitted, ...(outcome.cashoutStatus ? { cashoutStatus: outcome.cashoutStatus } : {}) };
    if (!fromAccepted) return noteSubmission(db, locked, details);
    const moved = await applyToLocked(db, locked, 'SUBMIT_PENDING', details, now);
    return moved.ok ? moved.row : locked;
  }
  const event = outcome.outcome === 'CONFIRMED' ? (fromAccepted ? 'SUBMIT_CONFIRMED' : 'PARTNER_CONFIRMED') : 'PARTNER_REJECTED';
  const details = {
    ...submitted,
    ...(outcome.outcome === 'CONFIRMED' && outcome.cashoutStatus ? { cashoutStatus: outcome.cashoutStatus } : {}),
    ...(outcome.outcome === 'REJECTED' ? { rejectReason: outcome.reason } : {}),
  };
  const moved = await applyToLocked(db, locked, event, details, now);
  if (!moved.ok) throw new Error(`payout ${locked.payoutId}: ${event} refused from ${locked.payoutStatus}`);
  return moved.row;
}

interface Answer {
  row: repo.PayoutRow;
  outcome: SubmitOutcome | undefined;
}

/**
 * Applies many partner answers in one transaction. The common ones (an ACCP payout confirmed, or
 * taken as pending) are written set-wise: one statement each to post, to update and to record
 * the events. Anything else goes through applySubmitOutcome, one by one, in the same transaction.
 */
export async function applyAnswers(client: Queryable, answers: Answer[], now: Date): Promise<repo.PayoutRow[]> {
  const locked = await repo.lockPayouts(client, [...new Set(answers.map((a) => a.row.payoutId))]);
  const done = new Map<string, repo.PayoutRow>();
  const fast: Array<{ row: repo.PayoutRow; posts: boolean }> = [];
  const slow: Array<{ row: repo.PayoutRow; outcome: SubmitOutcome | undefined }> = [];
  const seen = new Set<string>();
  for (const { row, outcome } of answers) {
    if (seen.has(row.payoutId)) continue; // the same payout twice in a batch: the first answer counts
    seen.add(row.payoutId);
    const current = locked.get(row.payoutId);
    if (!current) throw new Error(`payout ${row.payoutId} vanished`);
    const event = current.submissionState === 'SUBMITTING' && current.payoutStatus === 'ACCP'
      ? (outcome?.outcome === 'CONFIRMED' ? 'SUBMIT_CONFIRMED' : outcome?.outcome === 'PENDING' ? 'SUBMIT_PENDING' : undefined)
      : undefined;
    const transition = event && findTransition(current.payoutStatus, event);
    if (!transition || !outcome || outcome.outcome === 'REJECTED') {
      if (current.submissionState === 'SUBMITTING') slow.push({ row: current, outcome });
      else done.set(row.payoutId, current);
      continue;
    }
    const next: repo.PayoutRow = {
      ...current,
      payoutStatus: transition.to,
      cashoutStatus: outcome.cashoutStatus ?? current.cashoutStatus,
      submissionState: 'SUBMITTED',
      completionTime: transition.to === 'PRCD' ? now : current.completionTime,
      eventSequence: current.eventSequence + 1,
    };
    fast.push({ row: next, posts: transition.ledger === 'POST' });
    done.set(row.payoutId, next);
  }
  // the rest one by one, the ledger accounts of all their voids locked first (ledger LOCK ORDER)
  await lockLedgerFor(client, slow.map(({ row, outcome }) => ({ row, event: answerEvent(row, outcome) })));
  for (const { row, outcome } of slow) done.set(row.payoutId, await applySubmitOutcome(client, row, outcome, now));
  const posted = fast.filter((f) => f.posts).map((f) => f.row.payoutId);
  if (posted.length > 0) await postPending(client, ...posted);
  await repo.writeSubmissions(client, fast.map((f) => f.row));
  await insertEvents(client, fast.map((f) => statusEvent(f.row, 'ACCP')));
  return answers.map((a) => done.get(a.row.payoutId)!);
}

/** Group-commits partner answers (see platform/batcher.ts). */
export function createAnswerApplier(deps: { db: Db; clock: Clock }) {
  const batcher = createBatcher<Answer, repo.PayoutRow>({
    run: (answers) => withTransaction(deps.db, (client) => applyAnswers(client, answers, deps.clock.now())),
    batchSizeMax: 100,
    concurrencyMax: 1,
  });
  return (answer: Answer) => batcher.submit(answer);
}

/** Calls the partner for a payout in SUBMITTING and applies the answer; returns the payout as it then stands. */
export async function submitAndApply(
  deps: SubmissionDeps, row: repo.PayoutRow, apply?: (answer: Answer) => Promise<repo.PayoutRow>,
): Promise<repo.PayoutRow> {
  let outcome: SubmitOutcome | undefined;
  try {
    outcome = await requireRail(deps.rails, forRail(row)).submit(forRail(row), AbortSignal.timeout(deps.partnerTimeoutMs));
  } catch {
    outcome = undefined; // timeout or transport failure: the partner may or may not have it
  }
  if (apply) return apply({ row, outcome });
  const [applied] = await withTransaction(deps.db, (client) => applyAnswers(client, [{ row, outcome }], deps.clock.now()));
  return applied!;
}
