// Test support: run the payout area's jobs by hand (the test service runs with WORKERS=0), with
// a clock the test chooses.
import type { JobHelpers } from 'graphile-worker';
import type { Db } from '../../src/platform/database/pool.ts';
import { createSandboxRails } from '../../src/payouts/rails/sandbox.ts';
import { payoutTasks } from '../../src/payouts/jobs.ts';

/** Jobs the tasks asked to add (the test runs them itself, or looks at them). */
export const addedJobs: Array<{ task: string; runAt?: Date; jobKey?: string }> = [];
const helpers = {
  logger: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined },
  addJob: async (task: string, _payload: unknown, spec: { runAt?: Date; jobKey?: string } = {}) => {
    addedJobs.push({ task, ...spec });
  },
} as unknown as JobHelpers;

export function payoutJobs(db: Db, options: { nowMs?: () => number; latencyMs?: number } = {}) {
  const clock = { now: () => new Date(options.nowMs?.() ?? Date.now()) };
  const tasks = payoutTasks({ db, rails: createSandboxRails({ db, latencyMs: options.latencyMs ?? 0 }), clock, partnerTimeoutMs: 5000, submissionRecoverySeconds: 1 });
  const run = (name: string) => async (payoutId: string) => {
    await tasks[name]!({ payoutId }, helpers);
  };
  return {
    expire: async (...payoutIds: string[]) => {
      await tasks['payout.expire']!({ payoutIds }, helpers);
    },
    cancel: run('payout.cancel'),
    finishSubmission: run('payout.finish_submission'),
    recoverSubmissions: () => tasks['payout.recover_submissions']!({}, helpers),
  };
}

// graphile-worker's public jobs view leaves the payload out; these read its table.
const EXPIRY_JOB_PAYOUTS = `SELECT j.run_at AS "runAt", listed.id FROM graphile_worker._private_jobs j
  JOIN graphile_worker._private_tasks t ON t.id = j.task_id, jsonb_array_elements_text(j.payload::jsonb -> 'payoutIds') AS listed(id)
  WHERE t.identifier = 'payout.expire'`;

/** When the expiry jobs that list the payout are due. */
export async function expiryJobsListing(db: Db, payoutId: string): Promise<Date[]> {
  const { rows } = await db.query<{ runAt: Date }>(`SELECT "runAt" FROM (${EXPIRY_JOB_PAYOUTS}) e WHERE e.id = $1`, [payoutId]);
  return rows.map((r) => r.runAt);
}

/** How many payouts listed by expiry jobs do not exist. */
export async function unlistedExpiryJobPayouts(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (${EXPIRY_JOB_PAYOUTS}) e WHERE NOT EXISTS (SELECT 1 FROM payouts p WHERE p.payout_id::text = e.id)`,
  );
  return rows[0]!.n;
}
