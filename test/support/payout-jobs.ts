// Test support: run the payout area's jobs by hand (the test service runs with WORKERS=0), with
// a clock the test chooses.
import type { JobHelpers } from 'graphile-worker';
import type { Db } from '../../src/platform/database/pool.ts';
import { createSandboxRails } from '../../src/payouts/rails/sandbox.ts';
import { payoutTasks } from '../../src/payouts/jobs.ts';

/** Alarms the payout area raised (payouts parked for review). */
export const alarms: Array<Record<string, unknown>> = [];
export const recordingAlarm = { error: (fields: object) => void alarms.push(fields as Record<string, unknown>) };

/** Jobs the tasks asked to add (the test runs them itself, or looks at them). */
export const addedJobs: Array<{ task: string; runAt?: Date; jobKey?: string }> = [];
const helpers = {
  job: { attempts: 1, max_attempts: 8 },
  logger: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined },
  addJob: async (task: string, _payload: unknown, spec: { runAt?: Date; jobKey?: string } = {}) => {
    addedJobs.push({ task, ...spec });
  },
} as unknown as JobHelpers;

export interface PayoutJobOptions {
  nowMs?: () => number;
  /** The sandbox partners answer after this long; over partnerTimeoutMs, every call times out. */
  latencyMs?: number;
  partnerTimeoutMs?: number;
  expiryBatchMax?: number;
}

export function payoutJobs(db: Db, options: PayoutJobOptions = {}) {
  const clock = { now: () => new Date(options.nowMs?.() ?? Date.now()) };
  const tasks = payoutTasks({
    db, rails: createSandboxRails({ db, latencyMs: options.latencyMs ?? 0 }), clock, partnerTimeoutMs: options.partnerTimeoutMs ?? 5000, submissionRecoverySeconds: 1, alarm: recordingAlarm,
    ...(options.expiryBatchMax === undefined ? {} : { expiryBatchMax: options.expiryBatchMax }),
  });
  const run = (name: string) => async (payoutId: string) => {
    await tasks[name]!({ payoutId }, helpers);
  };
  return {
    /** The expiry sweep (payout.expire_due). */
    expireDue: () => tasks['payout.expire_due']!({}, helpers),
    /** A payout.expire job as earlier versions enqueued them, one per creation batch. */
    expireListed: async (...payoutIds: string[]) => {
      await tasks['payout.expire']!({ payoutIds }, helpers);
    },
    cancel: run('payout.cancel'),
    /** The cancel job on its last allowed attempt. */
    cancelLastAttempt: async (payoutId: string) => {
      await tasks['payout.cancel']!({ payoutId }, { ...helpers, job: { attempts: 8, max_attempts: 8 } } as unknown as JobHelpers);
    },
    /** The resolve-doubt job, as the check-th question about this payout. */
    resolveDoubt: async (payoutId: string, check = 0) => {
      await tasks['payout.resolve_doubt']!({ payoutId, check }, helpers);
    },
    finishSubmission: run('payout.finish_submission'),
    recoverSubmissions: () => tasks['payout.recover_submissions']!({}, helpers),
  };
}
