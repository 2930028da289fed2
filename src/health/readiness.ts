// What /readyz checks: the process has finished starting, the database answers (within a bound),
// and each job runner this process has (WORKERS>0, WEBHOOK_WORKERS>0) is running. The answer
// names every part that is not ready, so an operator reads which one from the 503's detail.
import type { Queryable } from '../platform/database/pool.ts';
import type { Workers } from '../platform/jobs.ts';
import type { Readiness } from './routes.ts';

/** A database slower than this to answer `SELECT 1` is taken as not ready (a probe must not hang). */
export const READY_DATABASE_TIMEOUT_MS = 2_000;

export interface ReadinessParts {
  db: Queryable;
  /** false while starting and shutting down. */
  started(): boolean;
  /** The runners this process has, by the name the answer gives them; absent ones are not checked. */
  runners(): Record<string, Workers | undefined>;
  databaseTimeoutMs?: number;
}

async function databaseAnswers(db: Queryable, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([db.query('SELECT 1').then(() => true, () => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

export function createReadiness(parts: ReadinessParts): Readiness {
  return {
    async notReadyReason() {
      if (!parts.started()) return 'process: starting or shutting down';
      const reasons: string[] = [];
      if (!(await databaseAnswers(parts.db, parts.databaseTimeoutMs ?? READY_DATABASE_TIMEOUT_MS))) {
        reasons.push('database: does not answer');
      }
      for (const [name, runner] of Object.entries(parts.runners())) {
        if (runner !== undefined && !runner.running()) reasons.push(`${name}: the job runner is not running`);
      }
      return reasons.length === 0 ? undefined : reasons.join('; ');
    },
  };
}
