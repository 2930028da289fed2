// Report intake: a signed status report from a partner about one of its payouts. It is recorded
// once per (partner, reportId), and applied (through the payouts area's partner-report job,
// enqueued in the same transaction) only when its sequence is above every report already applied
// for the payout, so reports may arrive twice or out of order without a second or a stale effect.
import { type Db, type DbClient } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { enqueueJob } from '../platform/jobs.ts';
import { PARTNER_REPORT_TASK } from '../payouts/task-names.ts';
import type { PartnerReport as AppliedReport, ReportedStatus } from '../payouts/partner-report.ts';
import type { PartnerReport, PartnerReportAnswer, ReportStatus } from './protocol.ts';
import * as repo from './repo.ts';
import { ok, refuse, type Result } from '../platform/result.ts';
import type { IntakeRefusal } from './errors.ts';

export type IntakeResult = Result<PartnerReportAnswer, IntakeRefusal>;

const PAYOUT_STATUS_OF: Record<ReportStatus, ReportedStatus> = {
  PAID: 'PRCD',
  CASH_PICKED_UP: 'PRCD',
  REJECTED: 'RJCT',
  FAILED: 'FAIL',
  RETURNED: 'RVSD',
};

function appliedReport(report: PartnerReport): AppliedReport {
  const cashoutStatus = report.cashoutStatus ?? (report.status === 'CASH_PICKED_UP' ? 'PAID' : undefined);
  return {
    payoutStatus: PAYOUT_STATUS_OF[report.status],
    ...(report.rejectReason !== undefined ? { rejectReason: report.rejectReason } : {}),
    ...(cashoutStatus !== undefined ? { cashoutStatus } : {}),
  };
}

/** A repeated report id must repeat the report: the same payout, status and sequence. */
function sameReport(row: repo.ReportRow, report: PartnerReport): boolean {
  return row.payoutId === report.payoutId && row.status === report.status && row.sequence === String(report.sequence);
}

async function record(client: DbClient, memberId: string, report: PartnerReport): Promise<IntakeResult> {
  if ((await repo.payoutDestination(client, report.payoutId)) !== memberId) return refuse('PAYOUT_NOT_FOUND');
  const inserted = await repo.insertReport(client, { memberId, ...report, rejectReason: report.rejectReason, cashoutStatus: report.cashoutStatus }, false);
  if (!inserted) {
    const first = (await repo.findReport(client, memberId, report.reportId))!;
    if (!sameReport(first, report)) return refuse('REPORT_ID_REUSED');
    return ok({ reportId: first.reportId, payoutId: first.payoutId, applied: first.applied });
  }
  const applied = await repo.advanceReportHead(client, report.payoutId, report.sequence);
  if (applied) {
    await repo.markApplied(client, memberId, report.reportId);
    // one queue per payout: its reports are applied one at a time, in the order they were accepted
    await enqueueJob(client, PARTNER_REPORT_TASK, { payoutId: report.payoutId, report: appliedReport(report) }, {
      queueName: `partner-report:${report.payoutId}`,
    });
  }
  return ok({ reportId: report.reportId, payoutId: report.payoutId, applied });
}

export function createIntake(deps: { db: Db }) {
  return {
    /** `memberId` is the partner whose key signed the request. */
    receive(memberId: string, report: PartnerReport): Promise<IntakeResult> {
      return withTransaction(deps.db, (client) => record(client, memberId, report));
    },
  };
}
export type Intake = ReturnType<typeof createIntake>;
