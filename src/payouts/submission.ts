// Sending a payout to its partner. The submission is recorded (SUBMITTING) before the call, the
// call is made with no lock held, and its answer is applied afterwards. If the process dies in
// between, the finish-submission job sends the same payout id again; rails answer a repeated id
// as they answered the first time, so nothing is paid twice.
import { withTransaction, type Db, type Queryable } from '../platform/database/pool.ts';
import type { Clock } from '../platform/clock.ts';
import { applyToLocked, noteSubmission } from './apply.ts';
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

/** Calls the partner for a payout in SUBMITTING and applies the answer; returns the payout as it then stands. */
export async function submitAndApply(deps: SubmissionDeps, row: repo.PayoutRow): Promise<repo.PayoutRow> {
  let outcome: SubmitOutcome | undefined;
  try {
    outcome = await requireRail(deps.rails, forRail(row)).submit(forRail(row), AbortSignal.timeout(deps.partnerTimeoutMs));
  } catch {
    outcome = undefined; // timeout or transport failure: the partner may or may not have it
  }
  return withTransaction(deps.db, async (client) => {
    const locked = await repo.lockPayout(client, row.payoutId);
    if (!locked) throw new Error(`payout ${row.payoutId} vanished`);
    if (locked.submissionState !== 'SUBMITTING') return locked; // another attempt applied it first
    return applySubmitOutcome(client, locked, outcome, deps.clock.now());
  });
}
