// POST /v2/payouts/{id}/cancel records the request (cancellation PNDG) and enqueues the cancel
// job in the same transaction; the job asks the partner when the payout is with one, then ends
// the cancellation: payout CNCL and cancellation PRCD, or cancellation RJCT when it was paid.
import { type Db } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import type { Clock } from '../platform/clock.ts';
import { enqueueJob } from '../platform/jobs.ts';
import { applyToLocked, changeCancellation } from './apply.ts';
import { CANCELLABLE, type CancellationStatus, type PayoutStatus } from './lifecycle.ts';
import { requireRail, type CancelOutcome, type RailRegistry } from './rails/rail.ts';
import * as repo from './repo.ts';
import { forRail } from './submission.ts';
import { CANCEL_TASK } from './task-names.ts';

export type CancelResult =
  | { ok: true; view: { payoutStatus: PayoutStatus; payoutCancellationStatus: CancellationStatus } }
  | { ok: false; code: 'NOT_FOUND' | 'INVALID_STATE'; detail: string };

export async function requestCancellation(db: Db, memberId: string, payoutId: string, reason: string): Promise<CancelResult> {
  return withTransaction(db, async (client): Promise<CancelResult> => {
    const locked = await repo.findPayout(client, memberId, payoutId, true);
    if (!locked) return { ok: false, code: 'NOT_FOUND', detail: `payoutId: ${payoutId}` };
    if (locked.cancellationStatus === 'PNDG') return { ok: true, view: { payoutStatus: locked.payoutStatus, payoutCancellationStatus: 'PNDG' } };
    if (!CANCELLABLE.includes(locked.payoutStatus) || locked.cancellationStatus !== null) {
      return { ok: false, code: 'INVALID_STATE', detail: `payoutStatus: ${locked.payoutStatus}` };
    }
    const changed = await changeCancellation(client, locked, 'REQUESTED', { cancellationReason: reason });
    if (!changed.ok) return { ok: false, code: 'INVALID_STATE', detail: `payoutStatus: ${locked.payoutStatus}` };
    await enqueueJob(client, CANCEL_TASK, { payoutId }, { jobKey: `payout-cancel:${payoutId}` });
    return { ok: true, view: { payoutStatus: changed.row.payoutStatus, payoutCancellationStatus: 'PNDG' } };
  });
}

/** Thrown to make graphile-worker try the cancel job again later. */
export class RetryLater extends Error {
  override name = 'RetryLater';
}

export interface CancelJobDeps {
  db: Db;
  rails: RailRegistry;
  clock: Clock;
  partnerTimeoutMs: number;
}

/** The cancel job: ends a pending cancellation. Safe to run more than once. */
export async function finishCancellation(deps: CancelJobDeps, payoutId: string): Promise<void> {
  const row = await repo.readPayout(deps.db, payoutId);
  if (!row || row.cancellationStatus !== 'PNDG') return;
  if (row.payoutStatus === 'ACCP' && row.submissionState === 'SUBMITTING') throw new RetryLater('the payout is being submitted');
  let partner: CancelOutcome | undefined;
  if (row.payoutStatus === 'PNDG') {
    partner = await requireRail(deps.rails, forRail(row)).cancel(forRail(row), AbortSignal.timeout(deps.partnerTimeoutMs));
  }
  await withTransaction(deps.db, async (client) => {
    const locked = await repo.lockPayout(client, payoutId);
    if (!locked || locked.cancellationStatus !== 'PNDG') return;
    const now = deps.clock.now();
    const notYetSent = locked.payoutStatus === 'ACCP' && locked.submissionState === 'NONE';
    const withdrawn = locked.payoutStatus === 'PNDG' && partner?.outcome === 'CANCELLED';
    if (notYetSent || withdrawn) {
      const cancelled = await applyToLocked(client, locked, 'CANCELLED', {}, now);
      if (!cancelled.ok) throw new Error(`payout ${payoutId}: cancel refused from ${locked.payoutStatus}`);
      await changeCancellation(client, cancelled.row, 'DONE');
      return;
    }
    if (locked.payoutStatus === 'PNDG' && partner?.outcome === 'ALREADY_PAID') {
      const paid = await applyToLocked(client, locked, 'PARTNER_CONFIRMED', { cashoutStatus: 'PAID' }, now);
      if (!paid.ok) throw new Error(`payout ${payoutId}: confirm refused from ${locked.payoutStatus}`);
      await changeCancellation(client, paid.row, 'REFUSED');
      return;
    }
    if (locked.payoutStatus === 'ACCP' || locked.payoutStatus === 'PNDG') throw new RetryLater('the payout moved while the partner was asked');
    await changeCancellation(client, locked, 'REFUSED'); // already final: paid, rejected, failed or expired
  });
}
