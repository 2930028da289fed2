// The payout area's durable background steps (graphile-worker tasks). Each re-reads the payout
// and does nothing when it has moved on, so running one twice is harmless.
import type { Task, TaskList } from 'graphile-worker';
import { withTransaction, type Db } from '../platform/database/pool.ts';
import type { Clock } from '../platform/clock.ts';
import { applyToLocked } from './apply.ts';
import { finishCancellation } from './cancel-payout.ts';
import { applyPartnerReport, type PartnerReport } from './partner-report.ts';
import type { RailRegistry } from './rails/rail.ts';
import * as repo from './repo.ts';
import { submitAndApply } from './submission.ts';
import { CANCEL_TASK, EXPIRE_TASK, FINISH_SUBMISSION_TASK, PARTNER_REPORT_TASK } from './task-names.ts';

export interface PayoutJobDeps {
  db: Db;
  rails: RailRegistry;
  clock: Clock;
  partnerTimeoutMs: number;
}

const payoutIdOf = (payload: unknown): string => {
  const id = (payload as { payoutId?: unknown } | null)?.payoutId;
  if (typeof id !== 'string') throw new Error('job payload has no payoutId');
  return id;
};

export function payoutTasks(deps: PayoutJobDeps): TaskList {
  const expire: Task = async (payload, helpers) => {
    const payoutId = payoutIdOf(payload);
    await withTransaction(deps.db, async (client) => {
      const locked = await repo.lockPayout(client, payoutId);
      if (!locked || locked.payoutStatus !== 'ACCP' || locked.submissionState !== 'NONE' || locked.cancellationStatus !== null) return;
      const now = deps.clock.now();
      if (now < locked.expiryTime) throw new Error(`payout ${payoutId} expires at ${locked.expiryTime.toISOString()}, not yet`);
      await applyToLocked(client, locked, 'EXPIRED', {}, now);
      helpers.logger.info(`payout ${payoutId} expired`);
    });
  };

  const finishSubmission: Task = async (payload) => {
    const row = await repo.readPayout(deps.db, payoutIdOf(payload));
    if (!row || row.submissionState !== 'SUBMITTING') return;
    await submitAndApply(deps, row);
  };

  const cancel: Task = async (payload) => finishCancellation(deps, payoutIdOf(payload));

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
  };
}
