// Payouts parked for an operator. The service parks a payout, instead of guessing, when its
// partner cannot be asked what became of it (STATUS_UNKNOWN), when a cancellation cannot be
// settled (CANCEL_UNKNOWN), or when an answer or report contradicts what the payout became
// (CONTRADICTION). A parked payout keeps its reservation; nothing automatic touches it again
// until an operator resolves the review (`npm run admin -- payouts resolve`), saying what was
// established with the partner. Opening and resolving publish payout.review_status_changed.
import { randomUUID } from 'node:crypto';
import { type Db, type Queryable } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import type { Clock } from '../platform/clock.ts';
import { enqueueJob } from '../platform/jobs.ts';
import { applyToLocked, changeCancellation, noteSubmission, reviewChanged } from './apply.ts';
import type { PayoutEvent, PayoutStatus } from './lifecycle.ts';
import * as repo from './repo.ts';
import * as reviews from './review-repo.ts';
import { CANCEL_TASK, RESOLVE_DOUBT_TASK } from './task-names.ts';

export interface Alarm {
  error(fields: object, message: string): void;
}

/** Parks a locked payout (or adds evidence to its open review); raises the alarm when it opens. */
export async function parkForReview(
  db: Queryable, locked: repo.PayoutRow, park: { reason: reviews.ReviewReason; detail: string; evidence: unknown }, now: Date, alarm: Alarm,
): Promise<{ row: repo.PayoutRow; review: reviews.ReviewRow }> {
  const { row: review, opened } = await reviews.openReview(db, { reviewId: randomUUID(), payoutId: locked.payoutId, ...park, now });
  if (!opened) return { row: locked, review };
  alarm.error({ alarm: 'PAYOUT_PARKED', payoutId: locked.payoutId, reviewId: review.reviewId, reason: park.reason, detail: park.detail }, 'payout parked for review');
  return { row: await reviewChanged(db, locked, review, 'OPEN'), review };
}

export type ResolveError = 'NOT_FOUND' | 'ALREADY_RESOLVED' | 'NOT_APPLICABLE' | 'INSUFFICIENT_PREFUND';
export type ResolveResult = { ok: true; payoutStatus: PayoutStatus; review: reviews.ReviewRow } | { ok: false; error: ResolveError; detail: string };

/**
 * What each resolution does to a payout in each status. PAID: the operator established that the
 * beneficiary was paid. NOT_PAID: that the partner does not hold it and will never pay it (or that
 * a paid payout's money came back). RETRY: hand it back to the automatic steps (ask the partner
 * again, or cancel again). ACKNOWLEDGED: nothing to change. Pairs not listed are refused.
 */
const RESOLUTIONS: ReadonlyArray<{ status: PayoutStatus; resolution: reviews.Resolution; event?: PayoutEvent; retry?: boolean }> = [
  { status: 'ACCP', resolution: 'PAID', event: 'SUBMIT_CONFIRMED' },
  { status: 'ACCP', resolution: 'ACKNOWLEDGED' },
  { status: 'PNDG', resolution: 'PAID', event: 'PARTNER_CONFIRMED' },
  { status: 'PNDG', resolution: 'NOT_PAID', event: 'PARTNER_FAILED' },
  { status: 'PNDG', resolution: 'RETRY', retry: true },
  { status: 'PRCD', resolution: 'PAID' },
  { status: 'PRCD', resolution: 'NOT_PAID', event: 'PARTNER_RETURNED' },
  { status: 'PRCD', resolution: 'ACKNOWLEDGED' },
  ...(['RJCT', 'FAIL', 'CNCL', 'EXPD'] as const).flatMap((status) => [
    { status, resolution: 'PAID' as const, event: 'FOUND_PAID' as const },
    { status, resolution: 'NOT_PAID' as const },
    { status, resolution: 'ACKNOWLEDGED' as const },
  ]),
  { status: 'RVSD', resolution: 'ACKNOWLEDGED' },
  { status: 'RVSD', resolution: 'NOT_PAID' },
];

export function findResolution(status: PayoutStatus, resolution: reviews.Resolution) {
  return RESOLUTIONS.find((r) => r.status === status && r.resolution === resolution);
}

export interface ResolveDeps {
  db: Db;
  clock: Clock;
}

export async function resolveReview(
  deps: ResolveDeps, reviewId: string, resolution: reviews.Resolution, actor: string, note: string,
): Promise<ResolveResult> {
  return withTransaction(deps.db, async (client): Promise<ResolveResult> => {
    const found = await reviews.lockReview(client, reviewId);
    if (!found) return { ok: false, error: 'NOT_FOUND', detail: `reviewId: ${reviewId}` };
    if (found.resolvedAt) return { ok: false, error: 'ALREADY_RESOLVED', detail: `resolved ${found.resolution} at ${found.resolvedAt.toISOString()}` };
    let row = (await repo.lockPayout(client, found.payoutId))!;
    const rule = findResolution(row.payoutStatus, resolution);
    if (!rule) return { ok: false, error: 'NOT_APPLICABLE', detail: `resolution ${resolution} does not apply to a payout in ${row.payoutStatus}` };
    const now = deps.clock.now();
    // not paid, with a cancellation pending: the cancellation is what ends it
    const event = rule.event === 'PARTNER_FAILED' && row.cancellationStatus === 'PNDG' ? 'CANCELLED' : rule.event;
    if (event) {
      const moved = await applyToLocked(client, row, event, event === 'PARTNER_FAILED' ? { rejectReason: 'Not paid (established by review)' } : {}, now);
      if (!moved.ok) return { ok: false, error: moved.error === 'INSUFFICIENT_PREFUND' ? 'INSUFFICIENT_PREFUND' : 'NOT_APPLICABLE', detail: `payoutStatus: ${row.payoutStatus}` };
      row = moved.row;
    }
    row = await settleAfterResolution(client, row, rule.retry === true);
    await reviews.closeReview(client, reviewId, resolution, actor, note, now);
    const review = { ...found, resolvedAt: now, resolution, resolvedBy: actor, note };
    await reviewChanged(client, row, review, 'RESOLVED');
    return { ok: true, payoutStatus: row.payoutStatus, review };
  });
}

/** After a resolution: the doubt is over (or handed back to the doubt job), and a pending cancellation is ended or retried. */
async function settleAfterResolution(client: Queryable, row: repo.PayoutRow, retry: boolean): Promise<repo.PayoutRow> {
  if (retry) {
    if (row.submissionState === 'IN_DOUBT') await enqueueJob(client, RESOLVE_DOUBT_TASK, { payoutId: row.payoutId, check: 0 }, { jobKey: `payout-doubt:${row.payoutId}` });
    else if (row.cancellationStatus === 'PNDG') await enqueueJob(client, CANCEL_TASK, { payoutId: row.payoutId }, { jobKey: `payout-cancel:${row.payoutId}` });
    return row;
  }
  if (row.payoutStatus === 'ACCP' && row.submissionState === 'NONE') await repo.requeueExpiry(client, row.payoutId);
  let settled = row.submissionState === 'IN_DOUBT' && row.payoutStatus !== 'PNDG' ? await noteSubmission(client, row, { submissionState: 'SUBMITTED' }) : row;
  if (settled.cancellationStatus === 'PNDG' && settled.payoutStatus !== 'PNDG') {
    const ended = await changeCancellation(client, settled, settled.payoutStatus === 'CNCL' ? 'DONE' : 'REFUSED');
    if (ended.ok) settled = ended.row;
  }
  return settled;
}
