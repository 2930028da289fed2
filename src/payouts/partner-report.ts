// Partner reports: what a partner says later about a payout it holds. Every report, from a real
// partner (through the partner-report job) or from the sandbox's simulate control, is applied
// here and nowhere else.
// - While a submission is under way its answer comes first: the report waits (IN_FLIGHT).
// - A payout in doubt, or pending with a partner, takes the report as the partner's word on what
//   became of it (a pending cancellation ends with it).
// - From a partner, a report that contradicts what the payout became (paid after its reservation
//   was released, rejected after it was paid, about a payout never sent) parks the payout for an
//   operator; one that agrees with it is a duplicate and changes nothing. The sandbox control
//   answers 409 to both instead, as the contract's state table says.
import { type Db, type Queryable } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import type { Clock } from '../platform/clock.ts';
import { applyToLocked, type ApplyResult } from './apply.ts';
import { applyPartnerStatus } from './doubt.ts';
import { findTransition, type PayoutEvent } from './lifecycle.ts';
import type { KnownStatus } from './rails/rail.ts';
import * as repo from './repo.ts';
import { openReviewOf } from './review-repo.ts';
import { parkForReview, type Alarm } from './review.ts';

export type ReportedStatus = 'PRCD' | 'RJCT' | 'FAIL' | 'RVSD' | 'EXPD';

export interface PartnerReport {
  payoutStatus: ReportedStatus;
  rejectReason?: string;
  cashoutStatus?: string;
}

export type ReportSource = 'PARTNER' | 'SANDBOX';

export type ReportResult = ApplyResult | { ok: false; error: 'IN_FLIGHT' | 'PARKED'; row: repo.PayoutRow };

const EVENT_OF: Record<ReportedStatus, PayoutEvent> = {
  PRCD: 'PARTNER_CONFIRMED',
  RJCT: 'PARTNER_REJECTED',
  FAIL: 'PARTNER_FAILED',
  RVSD: 'PARTNER_RETURNED',
  EXPD: 'EXPIRED',
};

const DEFAULT_REASON: Partial<Record<ReportedStatus, string>> = {
  RJCT: 'Rejected by the partner',
  FAIL: 'Failed at the partner',
};

/** The report in the partner-status vocabulary (EXPD is the sandbox's only). */
function saidOf(report: PartnerReport, reason: string | undefined): KnownStatus | undefined {
  switch (report.payoutStatus) {
    case 'PRCD': return { status: 'PAID', ...(report.cashoutStatus ? { cashoutStatus: report.cashoutStatus } : {}) };
    case 'RJCT': return { status: 'REJECTED', reason: reason! };
    case 'FAIL': return { status: 'FAILED', reason: reason! };
    case 'RVSD': return { status: 'RETURNED' };
    case 'EXPD': return undefined;
  }
}

/** Whether a report agrees with what a payout already is (a duplicate or a late echo). */
const AGREES: Record<ReportedStatus, readonly string[]> = {
  PRCD: ['PRCD', 'RVSD'],
  RJCT: ['RJCT', 'FAIL', 'CNCL', 'EXPD'],
  FAIL: ['RJCT', 'FAIL', 'CNCL', 'EXPD'],
  RVSD: ['RVSD'],
  EXPD: ['EXPD'],
};

export interface ReportDeps {
  db: Db;
  clock: Clock;
  alarm: Alarm;
}

export async function applyPartnerReport(deps: ReportDeps, payoutId: string, report: PartnerReport, source: ReportSource): Promise<ReportResult> {
  return withTransaction(deps.db, async (client): Promise<ReportResult> => {
    const locked = await repo.lockPayout(client, payoutId);
    if (!locked) return { ok: false, error: 'NOT_FOUND' };
    if (locked.submissionState === 'SUBMITTING') return { ok: false, error: 'IN_FLIGHT', row: locked };
    const now = deps.clock.now();
    const cashoutStatus = report.cashoutStatus ?? (report.payoutStatus === 'PRCD' && locked.payoutMethod === 'CASH_PICKUP' ? 'PAID' : undefined);
    const rejectReason = report.rejectReason ?? DEFAULT_REASON[report.payoutStatus];
    const said = saidOf({ ...report, ...(cashoutStatus ? { cashoutStatus } : {}) }, rejectReason);
    const withPartner = locked.submissionState === 'IN_DOUBT' || (source === 'PARTNER' && locked.payoutStatus === 'PNDG');
    if (withPartner && said && !(await openReviewOf(client, payoutId))) {
      return { ok: true, row: await applyPartnerStatus(client, locked, said, now, deps.alarm) };
    }
    if (source === 'PARTNER') {
      const refusal = await partnerRefusal(client, locked, report, now, deps.alarm);
      if (refusal) return refusal;
    }
    // a payout still being sent cannot expire; one not sent cannot be paid or returned by a partner
    if (report.payoutStatus === 'EXPD' && locked.submissionState !== 'NONE') return { ok: false, error: 'INVALID_STATE', row: locked };
    return applyToLocked(client, locked, EVENT_OF[report.payoutStatus], {
      ...(cashoutStatus !== undefined ? { cashoutStatus } : {}),
      ...(rejectReason !== undefined ? { rejectReason } : {}),
    }, now);
  });
}

/** What a real partner's report cannot do: act on a payout it was never sent, or undo what is final. */
async function partnerRefusal(client: Queryable, locked: repo.PayoutRow, report: PartnerReport, now: Date, alarm: Alarm): Promise<ReportResult | undefined> {
  if (await openReviewOf(client, locked.payoutId)) {
    await parkForReview(client, locked, { reason: 'CONTRADICTION', detail: 'a report for a parked payout', evidence: { report, at: now } }, now, alarm);
    return { ok: false, error: 'PARKED', row: locked };
  }
  const neverSent = locked.submissionState === 'NONE';
  const allowed = !neverSent && report.payoutStatus !== 'EXPD' && findTransition(locked.payoutStatus, EVENT_OF[report.payoutStatus]);
  if (allowed) return undefined;
  if (!neverSent && AGREES[report.payoutStatus].includes(locked.payoutStatus)) return { ok: false, error: 'INVALID_STATE', row: locked };
  const detail = neverSent
    ? `the partner reported ${report.payoutStatus} for a payout it was never sent`
    : `the partner reported ${report.payoutStatus} for a payout already ${locked.payoutStatus}`;
  const parked = await parkForReview(client, locked, { reason: 'CONTRADICTION', detail, evidence: { report, at: now } }, now, alarm);
  return { ok: false, error: 'PARKED', row: parked.row };
}
