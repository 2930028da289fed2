// The service's times come from the database: every process reads PostgreSQL's clock at start and
// then every refreshMs, and keeps the difference from its own clock, so that expiry times, rate
// locks, idempotency windows and job run times agree across processes whose system clocks drift
// apart. The difference is measured halfway through the round trip; a reading that takes longer
// than ROUND_TRIP_MAX_MS is not trusted. When the database cannot be read, the last difference is
// kept (a clock that drifts by seconds a day loses nothing in an outage).
import type { Clock } from '../clock.ts';
import type { Queryable } from './pool.ts';

export const CLOCK_REFRESH_MS = 30_000;
const ROUND_TRIP_MAX_MS = 1_000;

export interface DatabaseClock extends Clock {
  /** Milliseconds the database's clock is ahead of this process's. */
  offsetMs(): number;
  /** Reads the database's clock now; false when it could not be read reliably (the last offset is kept). */
  sync(): Promise<boolean>;
  stop(): void;
}

/** The database's clock as milliseconds since the epoch. */
async function databaseTimeMs(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ ms: string }>({ name: 'database-clock', text: `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS ms` });
  return Number(rows[0]!.ms);
}

export async function createDatabaseClock(db: Queryable, options: { refreshMs?: number; local?: () => number; onError?: (error: unknown) => void } = {}): Promise<DatabaseClock> {
  const local = options.local ?? Date.now;
  let offset = 0;
  async function sync(): Promise<boolean> {
    try {
      const sent = local();
      const databaseMs = await databaseTimeMs(db);
      const received = local();
      if (received - sent > ROUND_TRIP_MAX_MS) return false;
      offset = databaseMs - (sent + received) / 2;
      return true;
    } catch (error) {
      options.onError?.(error);
      return false;
    }
  }
  if (!(await sync()) && !(await sync())) throw new Error('the database clock could not be read');
  const timer = setInterval(() => void sync(), options.refreshMs ?? CLOCK_REFRESH_MS);
  timer.unref();
  return {
    now: () => new Date(Math.round(local() + offset)),
    offsetMs: () => offset,
    sync,
    stop: () => clearInterval(timer),
  };
}
