// Partner reports: what a partner says later about a payout it holds. Every report, from a real
// partner (through the partner-report job) or from the sandbox's simulate control, is applied
// here and nowhere else.
import { type Db } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import type { Clock } from '../platform/clock.ts';
import { applyToLocked, type ApplyResult } from './apply.ts';
import type { PayoutEvent } from './lifecycle.ts';
import * as repo from './repo.ts';

export type ReportedStatus = 'PRCD' | 'RJCT' | 'FAIL' | 'RVSD' | 'EXPD';

export interface PartnerReport {
  payoutStatus: ReportedStatus;
  rejectReason?: string;
  cashoutStatus?: string;
}

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

export async function applyPartnerReport(deps: { db: Db; clock: Clock }, payoutId: string, report: PartnerReport): Promise<ApplyResult> {
  return withTransaction(deps.db, async (client) => {
    const locked = await repo.lockPayout(client, payoutId);
    if (!locked) return { ok: false, error: 'NOT_FOUND' };
    // a payout still being sent cannot expire; one not sent cannot be paid or returned by a partner
    if (report.payoutStatus === 'EXPD' && locked.submissionState !== 'NONE') return { ok: false, error: 'INVALID_STATE', row: locked };
    const cashoutStatus = report.cashoutStatus ?? (report.payoutStatus === 'PRCD' && locked.payoutMethod === 'CASH_PICKUP' ? 'PAID' : undefined);
    const rejectReason = report.rejectReason ?? DEFAULT_REASON[report.payoutStatus];
    return applyToLocked(client, locked, EVENT_OF[report.payoutStatus], {
      ...(cashoutStatus !== undefined ? { cashoutStatus } : {}),
      ...(rejectReason !== undefined ? { rejectReason } : {}),
    }, deps.clock.now());
  });
}
