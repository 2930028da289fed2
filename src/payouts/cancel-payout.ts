// POST /v2/payouts/{id}/cancel records the request (cancellation PNDG) and enqueues the cancel
// job in the same transaction; the job asks the partner when the payout is with one, then ends
// the cancellation: payout CNCL and cancellation PRCD, or cancellation RJCT when it was paid or
// ended otherwise. The reservation is released only on the partner's word that it will not pay.
import { type Db } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import type { Clock } from '../platform/clock.ts';
import { enqueueJob } from '../platform/jobs.ts';
import { applyToLocked, changeCancellation } from './apply.ts';
import { CANCELLABLE, type CancellationStatus, type PayoutStatus } from './lifecycle.ts';
import { requireRail, statusOfCancel, type CancelOutcome, type RailRegistry } from './rails/rail.ts';
import * as repo from './repo.ts';
import { forRail } from './for-rail.ts';
import { applyPartnerStatus } from './doubt.ts';
import { parkForReview, type Alarm } from './review.ts';
import { CANCEL_TASK } from './task-names.ts';
import { ok, refuse, type Result } from '../platform/result.ts';

export type CancelResult = Result<{ payoutStatus: PayoutStatus; payoutCancellationStatus: CancellationStatus }, 'NOT_FOUND' | 'INVALID_STATE'>;

export async function requestCancellation(db: Db, memberId: string, payoutId: string, reason: string): Promise<CancelResult> {
  return withTransaction(db, async (client): Promise<CancelResult> => {
    const locked = await repo.findPayout(client, memberId, payoutId, true);
    if (!locked) return refuse('NOT_FOUND', `payoutId: ${payoutId}`);
    if (locked.cancellationStatus === 'PNDG') return ok({ payoutStatus: locked.payoutStatus, payoutCancellationStatus: 'PNDG' });
    if (!CANCELLABLE.includes(locked.payoutStatus) || locked.cancellationStatus !== null) {
      return refuse('INVALID_STATE', `payoutStatus: ${locked.payoutStatus}`);
    }
    const changed = await changeCancellation(client, locked, 'REQUESTED', { cancellationReason: reason });
    if (!changed.ok) return refuse('INVALID_STATE', `payoutStatus: ${locked.payoutStatus}`);
    await enqueueJob(client, CANCEL_TASK, { payoutId }, { jobKey: `payout-cancel:${payoutId}`, maxAttempts: CANCEL_ATTEMPTS_MAX });
    return ok({ payoutStatus: changed.row.payoutStatus, payoutCancellationStatus: 'PNDG' });
  });
}

/** Thrown to make graphile-worker try the cancel job again later. */
export class RetryLater extends Error {
  override name = 'RetryLater';
}

/** How many times the cancel job runs before a cancellation the partner never settled is parked. */
export const CANCEL_ATTEMPTS_MAX = 8;

export interface CancelJobDeps {
  db: Db;
  rails: RailRegistry;
  clock: Clock;
  partnerTimeoutMs: number;
  alarm: Alarm;
}

/**
 * The cancel job: ends a pending cancellation. Safe to run more than once. A payout never sent
 * is cancelled at once; one with its partner is cancelled there first, and released only when
 * the partner says it withdrew it (or blocked its id); one in doubt is left to the doubt job,
 * which cancels instead of resending. A partner that gives no clear answer is asked again on the
 * job's schedule, and on the last attempt the payout is parked for an operator.
 */
export async function finishCancellation(deps: CancelJobDeps, payoutId: string, options: { lastAttempt: boolean }): Promise<void> {
  const row = await repo.readPayout(deps.db, payoutId);
  if (!row || row.cancellationStatus !== 'PNDG' || row.submissionState === 'IN_DOUBT') return;
  if (row.submissionState === 'SUBMITTING') {
    if (options.lastAttempt) return parkUnsettled(deps, payoutId, 'the payout was still being submitted');
    throw new RetryLater('the payout is being submitted');
  }
  let partner: CancelOutcome | undefined;
  if (row.payoutStatus === 'PNDG') {
    try {
      partner = await requireRail(deps.rails, forRail(row)).cancel(forRail(row), AbortSignal.timeout(deps.partnerTimeoutMs));
    } catch (error) {
      if (options.lastAttempt) return parkUnsettled(deps, payoutId, `the partner gave no clear answer (${(error as Error).message})`);
      throw new RetryLater(`the partner gave no clear answer to the cancellation: ${(error as Error).message}`);
    }
  }
  await withTransaction(deps.db, async (client) => {
    const locked = await repo.lockPayout(client, payoutId);
    if (!locked || locked.cancellationStatus !== 'PNDG') return;
    const now = deps.clock.now();
    if (locked.payoutStatus === 'ACCP' && locked.submissionState === 'NONE') {
      const cancelled = await applyToLocked(client, locked, 'CANCELLED', {}, now);
      if (!cancelled.ok) throw new Error(`payout ${payoutId}: cancel refused from ${locked.payoutStatus}`);
      await changeCancellation(client, cancelled.row, 'DONE');
      return;
    }
    if (locked.payoutStatus === 'PNDG' && locked.submissionState === 'SUBMITTED' && partner) {
      await applyPartnerStatus(client, locked, statusOfCancel(partner), now, deps.alarm);
      return;
    }
    if (locked.payoutStatus === 'ACCP' || locked.payoutStatus === 'PNDG') throw new RetryLater('the payout moved while the partner was asked');
    await changeCancellation(client, locked, 'REFUSED'); // already final: paid, rejected, failed or expired
  });
}

async function parkUnsettled(deps: CancelJobDeps, payoutId: string, why: string): Promise<void> {
  await withTransaction(deps.db, async (client) => {
    const locked = await repo.lockPayout(client, payoutId);
    if (!locked || locked.cancellationStatus !== 'PNDG') return;
    const now = deps.clock.now();
    await parkForReview(client, locked, { reason: 'CANCEL_UNKNOWN', detail: `the cancellation could not be settled: ${why}`, evidence: { at: now } }, now, deps.alarm);
  });
}
