// Durable background steps on graphile-worker. A job is always enqueued through `enqueueJob` with
// the transaction client of the state change that causes it, so both commit or neither does.
import { Logger as WorkerLogger, parseCronItems, run, type CronItem, type Runner, type TaskList } from 'graphile-worker';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from './database/pool.ts';

export type { TaskList };

export interface EnqueueOptions {
  runAt?: Date;
  /** Replaces a pending job with the same key instead of adding a second one. */
  jobKey?: string;
  maxAttempts?: number;
}

export async function enqueueJob(client: Queryable, task: string, payload: object, options: EnqueueOptions = {}) {
  await client.query(
    `SELECT graphile_worker.add_job($1, $2::json, run_at => $3, job_key => $4, max_attempts => $5)`,
    [task, JSON.stringify(payload), options.runAt ?? null, options.jobKey ?? null, options.maxAttempts ?? null],
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
}

/** Starts the in-process worker pool; signals are the service's to handle, not the runner's. */
export async function startWorkers(options: StartWorkersOptions): Promise<Workers> {
  const runner: Runner = await run({
    pgPool: options.db,
    taskList: options.taskList,
    concurrency: options.concurrency,
    noHandleSignals: true,
    parsedCronItems: parseCronItems(options.cron ?? []), // declared in code, never read from a file
    pollInterval: options.pollIntervalMs ?? 1000,
    logger: workerLogger(options.log),
  });
  return {
    // stop() lets running jobs finish (graceful shutdown), then releases the worker's connections.
    stop: async () => {
      await runner.stop();
      await options.db.end();
    },
  };
}
