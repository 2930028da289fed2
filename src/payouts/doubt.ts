// In doubt is not an answer. After a partner call without a clear answer (a timeout, a dropped
// connection, a 5xx), or a recorded submission that was never answered, the partner may or may
// not hold the payout. It then stays PNDG with its reservation held, and the resolve-doubt job
// asks the partner by the payout id before anything else happens:
// - never received: sent again with the same id, or, when a cancellation is pending, cancelled at
//   the partner (which blocks any later arrival of the id) and only then released;
// - known: its status applied (paid, pending, rejected, failed, returned, cancelled);
// - still no answer: asked again later (DOUBT_CHECK_DELAYS_MS), then parked for an operator.
import { type Db, type Queryable } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import type { Clock } from '../platform/clock.ts';
import { enqueueJob } from '../platform/jobs.ts';
import { applyToLocked, changeCancellation, noteSubmission } from './apply.ts';
import { findSubmissionTransition, type PayoutEvent, type SubmissionEvent } from './lifecycle.ts';
import { statusOfCancel, type KnownStatus, type PayoutRail, type RailRegistry } from './rails/rail.ts';
import * as repo from './repo.ts';
import { forRail } from './for-rail.ts';
import { openReviewOf } from './review-repo.ts';
import { parkForReview, type Alarm } from './review.ts';
import { RESOLVE_DOUBT_TASK } from './task-names.ts';

/** When the partner is asked again after each unanswered question; after the last, the payout is parked. */
export const DOUBT_CHECK_DELAYS_MS: readonly number[] = [1000, 5000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];

export interface DoubtDeps {
  db: Db;
  rails: RailRegistry;
  clock: Clock;
  partnerTimeoutMs: number;
  alarm: Alarm;
}

const doubtJobKey = (payoutId: string) => `payout-doubt:${payoutId}`;

/** The submission state a locked payout moves to on `event` (a bug when the table does not allow it). */
export function submissionAfter(locked: repo.PayoutRow, event: SubmissionEvent): repo.PayoutRow['submissionState'] {
  const transition = findSubmissionTransition(locked.submissionState, event);
  if (!transition) throw new Error(`payout ${locked.payoutId}: submission ${event} refused from ${locked.submissionState}`);
  return transition.to;
}

/** Puts a locked payout in doubt (PNDG, reservation held) and schedules the question to its partner. */
export async function markInDoubt(client: Queryable, locked: repo.PayoutRow, now: Date, check: number): Promise<repo.PayoutRow> {
  const details = { submissionState: submissionAfter(locked, 'UNCLEAR') };
  let row: repo.PayoutRow;
  if (locked.payoutStatus === 'ACCP') {
    const moved = await applyToLocked(client, locked, 'SUBMIT_PENDING', details, now);
    if (!moved.ok) throw new Error(`payout ${locked.payoutId}: cannot be put in doubt from ${locked.payoutStatus}`);
    row = moved.row;
  } else {
    row = await noteSubmission(client, locked, details);
  }
  await scheduleCheck(client, row.payoutId, now, check);
  return row;
}

async function scheduleCheck(db: Queryable, payoutId: string, now: Date, check: number): Promise<void> {
  const runAt = new Date(now.getTime() + DOUBT_CHECK_DELAYS_MS[Math.min(check, DOUBT_CHECK_DELAYS_MS.length - 1)]!);
  await enqueueJob(db, RESOLVE_DOUBT_TASK, { payoutId, check }, { runAt, jobKey: doubtJobKey(payoutId) });
}

const PARTNER_EVENT: Partial<Record<KnownStatus['status'], PayoutEvent>> = {
  PAID: 'PARTNER_CONFIRMED',
  REJECTED: 'PARTNER_REJECTED',
  FAILED: 'PARTNER_FAILED',
};

/**
 * Applies what the partner says of a locked payout in doubt (or whose cancellation is pending),
 * and ends the doubt and any pending cancellation accordingly. A status that contradicts what
 * was asked of the partner parks the payout.
 */
export async function applyPartnerStatus(client: Queryable, locked: repo.PayoutRow, said: KnownStatus, now: Date, alarm: Alarm): Promise<repo.PayoutRow> {
  if (locked.payoutStatus !== 'PNDG') throw new Error(`payout ${locked.payoutId}: a partner status applies to PNDG, not ${locked.payoutStatus}`);
  const known = locked.submissionState === 'IN_DOUBT' ? { submissionState: submissionAfter(locked, 'KNOWN') } : {};
  if (said.status === 'PENDING') return noteSubmission(client, locked, { ...known, ...(said.cashoutStatus ? { cashoutStatus: said.cashoutStatus } : {}) });
  if (said.status === 'CANCELLED' && locked.cancellationStatus !== 'PNDG') {
    return (await parkForReview(client, locked, { reason: 'CONTRADICTION', detail: 'the partner says it cancelled a payout nobody asked it to cancel', evidence: { said, at: now } }, now, alarm)).row;
  }
  let row = locked;
  if (said.status === 'PAID' || said.status === 'RETURNED') {
    const cashout = said.status === 'PAID' ? said.cashoutStatus : undefined;
    row = await move(client, row, 'PARTNER_CONFIRMED', { ...known, cashoutStatus: cashout ?? (row.payoutMethod === 'CASH_PICKUP' ? 'PAID' : undefined) }, now);
    if (said.status === 'RETURNED') row = await move(client, row, 'PARTNER_RETURNED', {}, now);
  } else if (said.status === 'CANCELLED') {
    row = await move(client, row, 'CANCELLED', known, now);
  } else {
    row = await move(client, row, PARTNER_EVENT[said.status]!, { ...known, rejectReason: said.reason }, now);
  }
  if (row.cancellationStatus === 'PNDG') {
    const ended = await changeCancellation(client, row, row.payoutStatus === 'CNCL' ? 'DONE' : 'REFUSED');
    if (ended.ok) row = ended.row;
  }
  return row;
}

async function move(client: Queryable, row: repo.PayoutRow, event: PayoutEvent, details: { submissionState?: repo.PayoutRow['submissionState']; cashoutStatus?: string | undefined; rejectReason?: string }, now: Date) {
  const clean = Object.fromEntries(Object.entries(details).filter(([, v]) => v !== undefined));
  const moved = await applyToLocked(client, row, event, clean, now);
  if (!moved.ok) throw new Error(`payout ${row.payoutId}: ${event} refused from ${row.payoutStatus}`);
  return moved.row;
}

/** A call to the partner; undefined when it gave no clear answer. */
async function ask<T>(deps: DoubtDeps, row: repo.PayoutRow, call: (rail: PayoutRail, signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
  const rail = deps.rails.railFor(forRail(row));
  if (!rail) return undefined;
  try {
    return await call(rail, AbortSignal.timeout(deps.partnerTimeoutMs));
  } catch {
    return undefined;
  }
}

/** Runs `step` on the payout locked, if it is still in doubt and not parked. */
async function whileInDoubt(deps: DoubtDeps, payoutId: string, step: (client: Queryable, locked: repo.PayoutRow) => Promise<unknown>): Promise<void> {
  await withTransaction(deps.db, async (client) => {
    const locked = await repo.lockPayout(client, payoutId);
    if (!locked || locked.submissionState !== 'IN_DOUBT') return;
    if (await openReviewOf(client, payoutId)) return;
    await step(client, locked);
  });
}

export type Resend = (row: repo.PayoutRow, check: number) => Promise<unknown>;

/** The resolve-doubt job: one question to the partner, and what follows from its answer. */
export async function resolveDoubt(deps: DoubtDeps, payoutId: string, check: number, resend: Resend): Promise<void> {
  const row = await repo.readPayout(deps.db, payoutId);
  if (!row || row.submissionState !== 'IN_DOUBT' || (await openReviewOf(deps.db, payoutId))) return;
  const said = await ask(deps, row, (rail, signal) => rail.status(forRail(row), signal));
  if (said === undefined) return stillUnknown(deps, payoutId, check, 'STATUS_UNKNOWN', 'the partner gave no clear answer to the status request');
  if (said.status !== 'NOT_FOUND') {
    return whileInDoubt(deps, payoutId, (client, locked) => applyPartnerStatus(client, locked, said, deps.clock.now(), deps.alarm));
  }
  if (row.cancellationStatus !== 'PNDG') {
    // never received: send it again, the same id (the partner refuses it if it was cancelled meanwhile)
    let claimed: repo.PayoutRow | undefined;
    await whileInDoubt(deps, payoutId, async (client, locked) => {
      const change = { submissionState: submissionAfter(locked, 'NOT_RECEIVED'), initiateTime: deps.clock.now() };
      await repo.updatePayout(client, payoutId, change);
      claimed = { ...locked, ...change };
    });
    if (claimed) await resend(claimed, check + 1);
    return;
  }
  // never received and a cancellation is pending: cancel at the partner first, which blocks the id
  const cancelled = await ask(deps, row, (rail, signal) => rail.cancel(forRail(row), signal));
  if (cancelled === undefined) return stillUnknown(deps, payoutId, check, 'CANCEL_UNKNOWN', 'the partner gave no clear answer to the cancellation');
  return whileInDoubt(deps, payoutId, (client, locked) => applyPartnerStatus(client, locked, statusOfCancel(cancelled), deps.clock.now(), deps.alarm));
}

/** No clear answer again: ask later, or park the payout once the questions are used up. */
async function stillUnknown(deps: DoubtDeps, payoutId: string, check: number, reason: 'STATUS_UNKNOWN' | 'CANCEL_UNKNOWN', detail: string): Promise<void> {
  const now = deps.clock.now();
  if (check + 1 < DOUBT_CHECK_DELAYS_MS.length) return scheduleCheck(deps.db, payoutId, now, check + 1);
  await whileInDoubt(deps, payoutId, (client, locked) =>
    parkForReview(client, locked, { reason, detail: `${detail} (${check + 1} questions)`, evidence: { at: now, questions: check + 1 } }, now, deps.alarm));
}
