// The settlement pipeline's background jobs: one job per settlement at a time (the key replaces a
// pending one), each enqueued in the transaction that records what it follows from.
import type { JobHelpers, Task, TaskList } from 'graphile-worker';
import type { Queryable } from '../platform/database/pool.ts';
import { enqueueJob, type JobSpec } from '../platform/jobs.ts';
import type { ReviewStep } from './review-repo.ts';

export const SETTLEMENT_TASKS = {
  start: 'settlement.start',
  buy: 'settlement.buy',
  transfer: 'settlement.transfer',
  swap: 'settlement.swap',
  withdraw: 'settlement.withdraw',
} as const;
export type StepName = keyof typeof SETTLEMENT_TASKS;

/** Asks a venue by reference what it did with a step whose call ended without a clear answer. */
export const RESOLVE_DOUBT_TASK = 'settlement.resolve_doubt';

/** How long a step that waits (confirmations, a deposit) waits before it looks again. */
export const RECHECK_MS = 250;
const STEP_MAX_ATTEMPTS = 10;

export const jobKey = (settlementId: string) => `settlement:${settlementId}`;

/** The job of a settlement's next step; `check` carries how many questions its doubt already used. */
export const stepJob = (step: StepName, settlementId: string, runAt?: Date, check?: number): JobSpec => ({
  task: SETTLEMENT_TASKS[step], payload: { settlementId, ...(check ? { check } : {}) }, jobKey: jobKey(settlementId),
  maxAttempts: STEP_MAX_ATTEMPTS, ...(runAt ? { runAt } : {}),
});

export async function enqueueStep(client: Queryable, step: StepName, settlementId: string, runAt?: Date, check?: number): Promise<void> {
  const job = stepJob(step, settlementId, runAt, check);
  await enqueueJob(client, job.task, job.payload, job);
}

export async function enqueueDoubt(client: Queryable, settlementId: string, step: ReviewStep, check: number, runAt: Date): Promise<void> {
  await enqueueJob(client, RESOLVE_DOUBT_TASK, { settlementId, step, check }, { jobKey: jobKey(settlementId), maxAttempts: STEP_MAX_ATTEMPTS, runAt });
}

interface Payload { settlementId: string; check: number; step?: ReviewStep }

function payloadOf(payload: unknown): Payload {
  const p = payload as { settlementId?: unknown; check?: unknown; step?: unknown } | null;
  if (typeof p?.settlementId !== 'string') throw new Error('job payload has no settlementId');
  const check = typeof p.check === 'number' && Number.isInteger(p.check) && p.check >= 0 ? p.check : 0;
  return { settlementId: p.settlementId, check, ...(typeof p.step === 'string' ? { step: p.step as ReviewStep } : {}) };
}

export interface TaskHandlers {
  steps: Record<StepName, (settlementId: string, force?: boolean, check?: number) => Promise<void>>;
  resolveDoubt(settlementId: string, step: ReviewStep, check: number): Promise<void>;
  /** A job's last attempt failed: fail the settlement if nothing can have moved, park it otherwise. */
  lastAttemptFailed(settlementId: string, reason: string): Promise<void>;
}

/** Retried while attempts remain; the last attempt hands the settlement to lastAttemptFailed. */
function guarded(name: string, run: (p: Payload) => Promise<void>, handlers: TaskHandlers): Task {
  return async (payload, helpers: JobHelpers) => {
    const parsed = payloadOf(payload);
    try {
      await run(parsed);
    } catch (error) {
      if (helpers.job.attempts < helpers.job.max_attempts) throw error;
      helpers.logger.error(`settlement ${parsed.settlementId}: ${name} used its attempts: ${(error as Error).message}`);
      await handlers.lastAttemptFailed(parsed.settlementId, `${name}: ${(error as Error).message}`);
    }
  };
}

export function settlementTasks(handlers: TaskHandlers): TaskList {
  const tasks: TaskList = {};
  for (const step of Object.keys(SETTLEMENT_TASKS) as StepName[]) {
    tasks[SETTLEMENT_TASKS[step]] = guarded(step, (p) => handlers.steps[step](p.settlementId, false, p.check), handlers);
  }
  tasks[RESOLVE_DOUBT_TASK] = guarded('resolve doubt', async (p) => {
    if (!p.step) throw new Error('doubt job payload has no step');
    await handlers.resolveDoubt(p.settlementId, p.step, p.check);
  }, handlers);
  return tasks;
}
