// Durable background steps on graphile-worker. A job is always enqueued through `enqueueJob` with
// the transaction client of the state change that causes it, so both commit or neither does.
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
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
    // a routine completion is debug: at info, a busy queue would drown the lines that matter
    else if (level === 'info' && !message.startsWith('Completed task ')) log.info(entry, message);
    else log.debug(entry, message);
  });
}

export interface Workers {
  /** Whether a runner is working (false while one is being restarted, and after stop). */
  running(): boolean;
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
  /**
   * Called once the workers reach the database again after failing to (an outage, a restart of
   * the database): work that broke off meanwhile can be rescheduled. Its failure is logged.
   */
  onDatabaseBack?: () => Promise<void>;
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

/** A runner shutting down by itself that has not finished after this long is abandoned and replaced. */
const ABANDON_AFTER_MS = 10_000;

function databaseBack(options: StartWorkersOptions): void {
  options.onDatabaseBack?.().catch((error: unknown) => options.log.warn({ err: error }, 'rescheduling work after a database outage failed'));
}

/** Calls onDatabaseBack when a job fetch succeeds after one failed. */
function watchDatabase(events: WorkerEvents, options: StartWorkersOptions): void {
  let failing = false;
  events.on('worker:getJob:error', () => {
    failing = true;
  });
  const succeeded = () => {
    if (!failing) return;
    failing = false;
    options.log.info('the job workers reach the database again');
    databaseBack(options);
  };
  events.on('worker:getJob:empty', succeeded);
  events.on('job:start', succeeded);
}

/** After a runner stopped by itself, the first restart attempt waits this long, doubling up to the max. */
const RESTART_DELAY_MS = 250;
const RESTART_DELAY_MAX_MS = 2_000;
/**
 * Completions and failures go through graphile-worker's batcher, even one job at a time: when
 * recording a job's end fails, the batcher handles it by shutting the runner down (graphile-worker
 * 0.17.3 declares retries there but gives up at the first error), and the runner is restarted
 * here. Unbatched, that failure is a promise nobody awaits, and the process dies of an
 * unhandled rejection.
 */
const UNBATCHED_DELAY_MS = 0;

interface RunnerInstance {
  runner: Runner;
  events: WorkerEvents;
  /** The worker (and local queue) ids of this runner, whose locks and heartbeats are its own. */
  workerIds: Set<string>;
}

async function startRunner(options: StartWorkersOptions, workerIds: Set<string>, onCreate: () => void): Promise<RunnerInstance> {
  const events = new EventEmitter() as WorkerEvents;
  watchDatabase(events, options);
  events.on('worker:create', ({ worker }) => {
    workerIds.add(worker.workerId);
    onCreate();
  });
  // with a local queue, jobs are locked in the pool's name until a worker takes them
  events.on('pool:create', ({ workerPool }) => {
    workerIds.add(workerPool.id);
    onCreate();
  });
  const batchDelayMs = options.batching?.completeBatchDelayMs ?? UNBATCHED_DELAY_MS;
  const runner: Runner = await run({
    pgPool: options.db,
    taskList: options.taskList,
    concurrency: options.concurrency,
    noHandleSignals: true,
    parsedCronItems: parseCronItems(options.cron ?? []), // declared in code, never read from a file
    pollInterval: options.pollIntervalMs ?? 1000,
    logger: workerLogger(options.log),
    events,
    preset: {
      worker: {
        ...(options.batching ? { localQueue: { size: options.batching.localQueueSize } } : {}),
        completeJobBatchDelay: batchDelayMs,
        failJobBatchDelay: batchDelayMs,
      },
    },
  });
  return { runner, events, workerIds };
}

/**
 * Starts the in-process worker pool; signals are the service's to handle, not the runner's.
 * Through a database outage the workers keep polling and fail to find jobs until it is back; a
 * runner that stops by itself (its batcher gave up) is started again, after its jobs are freed.
 */
export async function startWorkers(options: StartWorkersOptions): Promise<Workers> {
  const { db, log } = options;
  let current: RunnerInstance | undefined;
  /** The ids of the runner working or starting, whose heartbeats are recorded. */
  let liveIds = new Set<string>();
  let restarting: Promise<void> | undefined;
  const stopping = new AbortController();
  const beat = () => recordHeartbeats(db, [...liveIds]).catch((error: unknown) => log.warn({ err: error }, 'worker heartbeat failed'));
  const start = () => {
    liveIds = new Set<string>();
    return startRunner(options, liveIds, () => void beat());
  };
  const heartbeat = setInterval(beat, HEARTBEAT_INTERVAL_MS);
  heartbeat.unref();

  const restart = async (dead: RunnerInstance) => {
    for (let delayMs = RESTART_DELAY_MS; !stopping.signal.aborted; delayMs = Math.min(delayMs * 2, RESTART_DELAY_MAX_MS)) {
      await sleep(delayMs, undefined, { signal: stopping.signal }).catch(() => undefined);
      if (stopping.signal.aborted) return;
      try {
        // the jobs the stopped runner still held are this process's, and no one works on them any more
        const deadIds = [...dead.workerIds];
        await db.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [deadIds]);
        await db.query('DELETE FROM job_worker_heartbeats WHERE worker_id = ANY($1::text[])', [deadIds]);
        const next = await start();
        if (stopping.signal.aborted) {
          await next.runner.stop();
          return;
        }
        current = next;
        watch(next);
        log.info('job runner restarted');
        databaseBack(options);
        return;
      } catch (error) {
        log.warn({ err: error, retryInMs: delayMs }, 'job runner restart failed; trying again');
      }
    }
  };
  const watch = (instance: RunnerInstance) => {
    const replace = (why: string) => {
      if (stopping.signal.aborted || current !== instance) return;
      current = undefined;
      liveIds = new Set<string>();
      log.error(`job runner ${why} (most likely the database was unreachable); restarting it`);
      restarting = restart(instance);
    };
    instance.runner.promise.then(
      () => undefined,
      (error: unknown) => log.warn({ err: error }, 'job runner failed'),
    ).then(() => replace('stopped by itself'));
    // graphile-worker shuts a pool down when it cannot record jobs' ends; should that shutdown
    // itself hang on the database, the runner is given up (its jobs are freed) and replaced
    instance.events.on('pool:gracefulShutdown', () => {
      if (stopping.signal.aborted) return;
      setTimeout(() => {
        if (current !== instance) return;
        instance.runner.kill().catch(() => undefined);
        replace(`did not finish shutting down within ${ABANDON_AFTER_MS} ms`);
      }, ABANDON_AFTER_MS).unref();
    });
  };

  current = await start();
  watch(current);
  // the first sweep soon after start: jobs a crashed predecessor held are freed once it has been silent long enough
  if (options.sweepDeadWorkers !== false) {
    await enqueueJob(db, UNLOCK_TASK, {}, { jobKey: UNLOCK_TASK, runAt: new Date(Date.now() + UNLOCK_INTERVAL_MS) });
  }
  return {
    running: () => current !== undefined,
    // stop() lets running jobs finish (graceful shutdown), then releases the worker's connections.
    stop: async () => {
      if (stopping.signal.aborted) return; // stopped already (the service's stop after a test's)
      stopping.abort();
      await restarting;
      const last = current;
      current = undefined;
      if (last) await last.runner.stop().catch((error: unknown) => log.warn({ err: error }, 'job runner stop failed'));
      clearInterval(heartbeat);
      if (last) await db.query('DELETE FROM job_worker_heartbeats WHERE worker_id = ANY($1::text[])', [[...last.workerIds]]).catch(() => undefined);
      await db.end();
    },
  };
}
