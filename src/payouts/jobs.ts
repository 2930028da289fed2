// The payout area's durable background steps (graphile-worker tasks). Each re-reads the payout
// and does nothing when it has moved on, so running one twice is harmless.
import type { CronItem, Task, TaskList } from 'graphile-worker';
import { withTransaction, type Db } from '../platform/database/pool.ts';
import type { Clock } from '../platform/clock.ts';
import { applyToLocked } from './apply.ts';
import { finishCancellation } from './cancel-payout.ts';
import { applyPartnerReport, type PartnerReport } from './partner-report.ts';
import type { RailRegistry } from './rails/rail.ts';
import * as repo from './repo.ts';
import { submitAndApply } from './submission.ts';
import { CANCEL_TASK, EXPIRE_TASK, FINISH_SUBMISSION_TASK, PARTNER_REPORT_TASK, RECOVER_SUBMISSIONS_TASK, RECOVERY_SWEEP_JOB_KEY } from './task-names.ts';

export interface PayoutJobDeps {
  db: Db;
  rails: RailRegistry;
  clock: Clock;
  partnerTimeoutMs: number;
  /** A recorded submission with no applied answer after this long is sent again. */
  submissionRecoverySeconds: number;
}

const SWEEP_BATCH_MAX = 200;
const SWEEP_INTERVAL_MAX_MS = 60_000;

const payoutIdOf = (payload: unknown): string => {
  const id = (payload as { payoutId?: unknown } | null)?.payoutId;
  if (typeof id !== 'string') throw new Error('job payload has no payoutId');
  return id;
};

/** The expiry job's payouts: the ones one creation batch created. */
const payoutIdsOf = (payload: unknown): string[] => {
  const ids = (payload as { payoutIds?: unknown } | null)?.payoutIds;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) throw new Error('job payload has no payoutIds');
  return ids;
};

/** The recovery sweep also runs every minute, whatever happened to its self-scheduling. */
export const payoutCron: CronItem[] = [
  { task: RECOVER_SUBMISSIONS_TASK, match: '* * * * *', options: { backfillPeriod: 0, jobKey: RECOVERY_SWEEP_JOB_KEY } },
];

export function payoutTasks(deps: PayoutJobDeps): TaskList {
  /** Expires the batch's payouts still waiting for `process` (one job per creation batch). */
  const expire: Task = async (payload, helpers) => {
    const payoutIds = payoutIdsOf(payload);
    await withTransaction(deps.db, async (client) => {
      const locked = await repo.lockPayouts(client, payoutIds);
      const now = deps.clock.now();
      for (const row of locked.values()) {
        if (row.payoutStatus !== 'ACCP' || row.submissionState !== 'NONE' || row.cancellationStatus !== null) continue;
        if (now < row.expiryTime) throw new Error(`payout ${row.payoutId} expires at ${row.expiryTime.toISOString()}, not yet`);
        await applyToLocked(client, row, 'EXPIRED', {}, now);
        helpers.logger.info(`payout ${row.payoutId} expired`);
      }
    });
  };

  /** Sends one recorded submission again if its answer was never applied (the sweep's step, also a task of its own). */
  const resend = async (payoutId: string) => {
    const row = await repo.readPayout(deps.db, payoutId);
    if (row?.submissionState === 'SUBMITTING') await submitAndApply(deps, row);
  };

  const finishSubmission: Task = async (payload) => resend(payoutIdOf(payload));

  const cancel: Task = async (payload) => finishCancellation(deps, payoutIdOf(payload));

  /**
   * Finds submissions recorded long enough ago whose answer was never applied (the process died,
   * or the partner did not answer in time) and sends them again, then schedules itself for when
   * the next one becomes due (at most a minute on; a cron line is the backstop).
   */
  const recoverSubmissions: Task = async (_payload, helpers) => {
    const recoveryMs = deps.submissionRecoverySeconds * 1000;
    const due = await repo.unfinishedSubmissions(deps.db, new Date(deps.clock.now().getTime() - recoveryMs), SWEEP_BATCH_MAX);
    for (const payoutId of due) await resend(payoutId);
    if (due.length > 0) helpers.logger.info(`resent ${due.length} unfinished payout submissions`);
    const oldest = await repo.oldestUnfinishedSubmission(deps.db);
    const now = deps.clock.now().getTime();
    const next = oldest ? Math.min(Math.max(oldest.getTime() + recoveryMs, now + 1000), now + SWEEP_INTERVAL_MAX_MS) : now + SWEEP_INTERVAL_MAX_MS;
    await helpers.addJob(RECOVER_SUBMISSIONS_TASK, {}, { runAt: new Date(next), jobKey: RECOVERY_SWEEP_JOB_KEY });
  };

  const partnerReport: Task = async (payload, helpers) => {
    const report = (payload as { report: PartnerReport }).report;
    const result = await applyPartnerReport(deps, payoutIdOf(payload), report);
    if (!result.ok) helpers.logger.warn(`partner report ${report.payoutStatus} for payout ${payoutIdOf(payload)} not applied: ${result.error}`);
  };

  return {
    [EXPIRE_TASK]: expire,
    [FINISH_SUBMISSION_TASK]: finishSubmission,
    [CANCEL_TASK]: cancel,
    [PARTNER_REPORT_TASK]: partnerReport,
    [RECOVER_SUBMISSIONS_TASK]: recoverSubmissions,
  };
}
