// The payout area's durable background steps (graphile-worker tasks). Each re-reads the payout
// and does nothing when it has moved on, so running one twice is harmless.
import type { CronItem, Task, TaskList } from 'graphile-worker';
import { type Db } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import type { Clock } from '../platform/clock.ts';
import { applyToLocked, lockLedgerFor } from './apply.ts';
import { finishCancellation, RetryLater } from './cancel-payout.ts';
import { applyPartnerReport, type PartnerReport } from './partner-report.ts';
import type { RailRegistry } from './rails/rail.ts';
import * as repo from './repo.ts';
import { submitAndApply } from './submission.ts';
import {
  CANCEL_TASK, EXPIRE_DUE_TASK, EXPIRE_TASK, EXPIRY_SWEEP_JOB_KEY, FINISH_SUBMISSION_TASK, PARTNER_REPORT_TASK, RECOVER_SUBMISSIONS_TASK,
  RECOVERY_SWEEP_JOB_KEY, RESOLVE_DOUBT_TASK,
} from './task-names.ts';
import { markInDoubt, resolveDoubt } from './doubt.ts';
import type { Alarm } from './review.ts';

export interface PayoutJobDeps {
  db: Db;
  rails: RailRegistry;
  clock: Clock;
  partnerTimeoutMs: number;
  alarm: Alarm;
  /** A recorded submission with no applied answer after this long is sent again. */
  submissionRecoverySeconds: number;
  /** How many payouts one expiry transaction takes (default 200). */
  expiryBatchMax?: number;
}

const SWEEP_BATCH_MAX = 200;
const SWEEP_INTERVAL_MAX_MS = 60_000;
/** A sweep runs again no sooner than this: payouts expire, and lost submissions are resent, within about a second of their time. */
const SWEEP_INTERVAL_MIN_MS = 1000;

/** When a sweep should run next: at `due` if there is one, but at least a second and at most a minute on. */
function nextSweepAt(now: Date, due: Date | undefined): Date {
  const at = due ? Math.max(due.getTime(), now.getTime() + SWEEP_INTERVAL_MIN_MS) : Infinity;
  return new Date(Math.min(at, now.getTime() + SWEEP_INTERVAL_MAX_MS));
}

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

/** The two sweeps also run every minute, whatever happened to their self-scheduling. */
export const payoutCron: CronItem[] = [
  { task: RECOVER_SUBMISSIONS_TASK, match: '* * * * *', options: { backfillPeriod: 0, jobKey: RECOVERY_SWEEP_JOB_KEY } },
  { task: EXPIRE_DUE_TASK, match: '* * * * *', options: { backfillPeriod: 0, jobKey: EXPIRY_SWEEP_JOB_KEY } },
];

export function payoutTasks(deps: PayoutJobDeps): TaskList {
  const expiryBatchMax = deps.expiryBatchMax ?? SWEEP_BATCH_MAX;

  /**
   * The expiry sweep: takes the expiry queue's due entries, a batch per transaction, and their
   * payouts still waiting for `process` become EXPD (their reservation voided); then the sweep
   * schedules itself for the next entry due (at least a second and at most a minute on; a cron
   * line is the backstop).
   */
  const expireDue: Task = async (_payload, helpers) => {
    const now = deps.clock.now();
    let expired = 0;
    for (;;) {
      const due = await withTransaction(deps.db, async (client) => {
        const taken = await repo.takeDueForExpiry(client, now, expiryBatchMax);
        await lockLedgerFor(client, taken.waiting.map((row) => ({ row, event: 'EXPIRED' as const })));
        for (const row of taken.waiting) await applyToLocked(client, row, 'EXPIRED', {}, now);
        return taken;
      });
      expired += due.waiting.length;
      if (due.taken < expiryBatchMax) break;
    }
    if (expired > 0) helpers.logger.info(`expired ${expired} payouts`);
    const runAt = nextSweepAt(now, await repo.nextExpiry(deps.db));
    await helpers.addJob(EXPIRE_DUE_TASK, {}, { runAt, jobKey: EXPIRY_SWEEP_JOB_KEY });
  };

  /** Expires the payouts an earlier version's creation batch listed (that version made one such job per batch). */
  const expire: Task = async (payload, helpers) => {
    const payoutIds = payoutIdsOf(payload);
    const expired = await withTransaction(deps.db, async (client) => {
      const locked = await repo.lockPayouts(client, payoutIds);
      const now = deps.clock.now();
      const waiting = [...locked.values()].filter((row) => row.payoutStatus === 'ACCP' && row.submissionState === 'NONE' && row.cancellationStatus === null);
      const early = waiting.find((row) => now < row.expiryTime);
      if (early) throw new Error(`payout ${early.payoutId} expires at ${early.expiryTime.toISOString()}, not yet`);
      await lockLedgerFor(client, waiting.map((row) => ({ row, event: 'EXPIRED' as const })));
      for (const row of waiting) await applyToLocked(client, row, 'EXPIRED', {}, now);
      return waiting.map((row) => row.payoutId);
    });
    for (const payoutId of expired) helpers.logger.info(`payout ${payoutId} expired`);
  };

  /**
   * A recorded submission whose answer was never applied (the process died during the call, or
   * the answer was lost): the partner may hold it, so it is put in doubt and the partner is
   * asked before anything is sent again.
   */
  const doubtUnanswered = async (payoutId: string, before: Date) => {
    await withTransaction(deps.db, async (client) => {
      const locked = await repo.lockPayout(client, payoutId);
      if (locked?.submissionState !== 'SUBMITTING' || !locked.initiateTime || locked.initiateTime >= before) return;
      await markInDoubt(client, locked, deps.clock.now(), 0);
    });
  };

  /** Left by earlier versions for one recorded submission: now handled as an unanswered one. */
  const finishSubmission: Task = async (payload) => doubtUnanswered(payoutIdOf(payload), deps.clock.now());

  const resolveDoubtTask: Task = async (payload) => {
    const check = (payload as { check?: unknown }).check;
    await resolveDoubt(deps, payoutIdOf(payload), typeof check === 'number' ? check : 0, (row, next) => submitAndApply(deps, row, undefined, next));
  };

  const cancel: Task = async (payload, helpers) =>
    finishCancellation(deps, payoutIdOf(payload), { lastAttempt: helpers.job.attempts >= helpers.job.max_attempts });

  /**
   * Finds submissions recorded long enough ago whose answer was never applied (the process died,
   * or the answer was lost) and puts them in doubt, then schedules itself for when the next one
   * becomes due (at most a minute on; a cron line is the backstop).
   */
  const recoverSubmissions: Task = async (_payload, helpers) => {
    const recoveryMs = deps.submissionRecoverySeconds * 1000;
    const before = new Date(deps.clock.now().getTime() - recoveryMs);
    const due = await repo.unfinishedSubmissions(deps.db, before, SWEEP_BATCH_MAX);
    for (const payoutId of due) await doubtUnanswered(payoutId, before);
    if (due.length > 0) helpers.logger.warn(`${due.length} payout submissions were never answered: their partners are asked`);
    const oldest = await repo.oldestUnfinishedSubmission(deps.db);
    const runAt = nextSweepAt(deps.clock.now(), oldest && new Date(oldest.getTime() + recoveryMs));
    await helpers.addJob(RECOVER_SUBMISSIONS_TASK, {}, { runAt, jobKey: RECOVERY_SWEEP_JOB_KEY });
  };

  const partnerReport: Task = async (payload, helpers) => {
    const report = (payload as { report: PartnerReport }).report;
    const result = await applyPartnerReport(deps, payoutIdOf(payload), report, 'PARTNER');
    if (!result.ok && result.error === 'IN_FLIGHT') throw new RetryLater('the payout is being submitted: its answer comes first');
    if (!result.ok) helpers.logger.warn(`partner report ${report.payoutStatus} for payout ${payoutIdOf(payload)} not applied: ${result.error}`);
  };

  return {
    [EXPIRE_DUE_TASK]: expireDue,
    [EXPIRE_TASK]: expire,
    [FINISH_SUBMISSION_TASK]: finishSubmission,
    [RESOLVE_DOUBT_TASK]: resolveDoubtTask,
    [CANCEL_TASK]: cancel,
    [PARTNER_REPORT_TASK]: partnerReport,
    [RECOVER_SUBMISSIONS_TASK]: recoverSubmissions,
  };
}
