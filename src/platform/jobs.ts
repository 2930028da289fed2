// Durable background steps on graphile-worker. A job is always enqueued through `enqueueJob` with
// the transaction client of the state change that causes it, so both commit or neither does.
import { EventEmitter } from 'node:events';
import { Logger as WorkerLogger, parseCronItems, run, type CronItem, type Runner, type Task, type TaskList, type WorkerEvents } from 'graphile-worker';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from './database/pool.ts';

export type { TaskList };

export interface EnqueueOptions {
  runAt?: Date;
  /** Replaces a pending job with the same key instead of adding a second one. */
  jobKey?: string;
  maxAttempts?: number;
  /** Jobs of one named queue run one at a time, in the order they were added. */
  queueName?: string;
}

export async function enqueueJob(client: Queryable, task: string, payload: object, options: EnqueueOptions = {}) {
  await client.query(
    `SELECT graphile_worker.add_job($1, $2::json, run_at => $3, job_key => $4, max_attempts => $5, queue_name => $6)`,
    [task, JSON.stringify(payload), options.runAt ?? null, options.jobKey ?? null, options.maxAttempts ?? null, options.queueName ?? null],
  );
}

/** Takes back a pending job by its key (inside the transaction that enqueued it, nothing ran yet). */
export async function removeJob(client: Queryable, jobKey: string) {
  await client.query('SELECT graphile_worker.remove_job($1)', [jobKey]);
}

export interface JobSpec extends EnqueueOptions {
  task: string;
  payload: object;
}

/** Many jobs in one statement (graphile_worker.add_jobs), for batched state changes. */
export async function enqueueJobs(client: Queryable, jobs: JobSpec[]) {
  if (jobs.length === 0) return;
  await client.query({
    name: 'jobs-add-batch',
    text: `SELECT graphile_worker.add_jobs(array_agg((j.identifier, j.payload, null, j.run_at, j.max_attempts, j.job_key, null, null)::graphile_worker.job_spec))
       FROM unnest($1::text[], $2::json[], $3::timestamptz[], $4::int[], $5::text[]) AS j(identifier, payload, run_at, max_attempts, job_key)`,
    values: [
      jobs.map((j) => j.task),
      jobs.map((j) => JSON.stringify(j.payload)),
      jobs.map((j) => j.runAt ?? null),
      jobs.map((j) => j.maxAttempts ?? null),
      jobs.map((j) => j.jobKey ?? null),
    ],
  });
}

/** graphile-worker logs through the service's pino logger. */
export function workerLogger(log: FastifyBaseLogger): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const entry = { scope: { label: scope.label, taskIdentifier: scope.taskIdentifier, jobId: scope.jobId }, ...meta };
    if (level === 'error') log.error(entry, message);
    else if (level === 'warning') log.warn(entry, message);
    else if (level === 'info') log.info(entry, message);
    else log.debug(entry, message);
  });
}

export interface Workers {
  stop(): Promise<void>;
}

export interface StartWorkersOptions {
  /** The runner's own pool (its LISTEN connection and job fetches), apart from the API's. */
  db: Db;
  taskList: TaskList;
  concurrency: number;
  log: FastifyBaseLogger;
  pollIntervalMs?: number;
  /** Schedules, declared in code. */
  cron?: CronItem[];
  /**
   * For many small jobs: fetch and lock up to `localQueueSize` jobs per query, and complete
   * finished jobs together (graphile-worker's localQueue and completeJobBatchDelay).
   */
  batching?: { localQueueSize: number; completeBatchDelayMs: number };
  /** Whether this pool runs the dead-worker sweep (default true; a second pool in the same process need not). */
  sweepDeadWorkers?: boolean;
}

/** How often a live process records that its workers are alive. */
const HEARTBEAT_INTERVAL_MS = 5_000;
/** A worker silent this long is taken as dead, and the jobs it holds are freed. */
export const WORKER_SILENCE_MS = 30_000;
export const UNLOCK_TASK = 'jobs.unlock_dead_workers';
/** The sweep runs this often (it schedules itself; a cron line each minute is the backstop). */
const UNLOCK_INTERVAL_MS = 15_000;

async function recordHeartbeats(db: Queryable, workerIds: string[]): Promise<void> {
  if (workerIds.length === 0) return;
  await db.query(
    `INSERT INTO job_worker_heartbeats (worker_id, heartbeat_at) SELECT unnest($1::text[]), now()
     ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = now()`,
    [workerIds],
  );
}

/**
 * Frees the jobs locked by workers that are gone: silent for WORKER_SILENCE_MS, or never heard
 * from, holding a lock that old. A job freed while its worker still ran late would run twice,
 * which every task here tolerates (each re-reads its state and repeats nothing).
 */
export async function unlockDeadWorkers(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ workerId: string }>(
    `SELECT DISTINCT j.locked_by AS "workerId" FROM graphile_worker.jobs j
      WHERE j.locked_by IS NOT NULL AND j.locked_at < now() - make_interval(secs => $1)
        AND NOT EXISTS (SELECT 1 FROM job_worker_heartbeats h
                         WHERE h.worker_id = j.locked_by AND h.heartbeat_at >= now() - make_interval(secs => $1))`,
    [WORKER_SILENCE_MS / 1000],
  );
  const dead = rows.map((r) => r.workerId);
  if (dead.length > 0) await db.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [dead]);
  await db.query('DELETE FROM job_worker_heartbeats WHERE heartbeat_at < now() - make_interval(secs => $1)', [(10 * WORKER_SILENCE_MS) / 1000]);
  return dead;
}

/** The sweep as a task: frees dead workers' jobs, then schedules its next run. */
export const unlockDeadWorkersTask = (db: Queryable): Task => async (_payload, helpers) => {
  const dead = await unlockDeadWorkers(db);
  if (dead.length > 0) helpers.logger.warn(`freed the jobs of ${dead.length} dead workers: ${dead.join(', ')}`);
  await helpers.addJob(UNLOCK_TASK, {}, { jobKey: UNLOCK_TASK, runAt: new Date(Date.now() + UNLOCK_INTERVAL_MS) });
};

export const unlockCron: CronItem = { task: UNLOCK_TASK, match: '* * * * *', options: { backfillPeriod: 0, jobKey: UNLOCK_TASK } };

/** Starts the in-process worker pool; signals are the service's to handle, not the runner's. */
export async function startWorkers(options: StartWorkersOptions): Promise<Workers> {
  const events = new EventEmitter() as WorkerEvents;
  const workerIds = new Set<string>();
  const beat = () => recordHeartbeats(options.db, [...workerIds]).catch((error: unknown) => options.log.warn({ err: error }, 'worker heartbeat failed'));
  events.on('worker:create', ({ worker }) => {
    workerIds.add(worker.workerId);
    void beat();
  });
  // with a local queue, jobs are locked in the pool's name until a worker takes them
  events.on('pool:create', ({ workerPool }) => {
    workerIds.add(workerPool.id);
    void beat();
  });
  const heartbeat = setInterval(beat, HEARTBEAT_INTERVAL_MS);
  heartbeat.unref();
  const runner: Runner = await run({
    pgPool: options.db,
    taskList: options.taskList,
    concurrency: options.concurrency,
    noHandleSignals: true,
    parsedCronItems: parseCronItems(options.cron ?? []), // declared in code, never read from a file
    pollInterval: options.pollIntervalMs ?? 1000,
    logger: workerLogger(options.log),
    events,
    ...(options.batching ? {
      preset: {
        worker: {
          localQueue: { size: options.batching.localQueueSize },
          completeJobBatchDelay: options.batching.completeBatchDelayMs,
          failJobBatchDelay: options.batching.completeBatchDelayMs,
        },
      },
    } : {}),
  });
  // the first sweep soon after start: jobs a crashed predecessor held are freed once it has been silent long enough
  if (options.sweepDeadWorkers !== false) {
    await enqueueJob(options.db, UNLOCK_TASK, {}, { jobKey: UNLOCK_TASK, runAt: new Date(Date.now() + UNLOCK_INTERVAL_MS) });
  }
  return {
    // stop() lets running jobs finish (graceful shutdown), then releases the worker's connections.
    stop: async () => {
      await runner.stop();
      clearInterval(heartbeat);
      await options.db.query('DELETE FROM job_worker_heartbeats WHERE worker_id = ANY($1::text[])', [[...workerIds]]).catch(() => undefined);
      await options.db.end();
    },
  };
}
