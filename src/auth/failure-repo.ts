// SQL for failed-authentication counters. The only place that knows the auth_failures table.
// Windows are fixed bins of PostgreSQL's clock, so every process agrees on them whatever its own.
import type { Queryable } from '../platform/database/pool.ts';

export interface BucketCount {
  bucket: string;
  failures: number;
  /** Until the current window ends. */
  secondsLeft: number;
}

/** The start of the current window, the window's length in seconds being the given parameter. */
const windowStart = (param: string) => `date_bin(make_interval(secs => ${param}), now(), timestamptz '2000-01-01 00:00:00+00')`;
const WINDOW = windowStart('$2');
const SECONDS_LEFT = `extract(epoch FROM (window_start + make_interval(secs => $2) - now()))::float8 AS "secondsLeft"`;

/** The current window's counts of these buckets; buckets without failures are absent. */
export async function readCounts(db: Queryable, buckets: readonly string[], windowSeconds: number): Promise<BucketCount[]> {
  const { rows } = await db.query<BucketCount>(
    `SELECT bucket, failures, ${SECONDS_LEFT} FROM auth_failures WHERE bucket = ANY($1::text[]) AND window_start = ${WINDOW}`,
    [buckets, windowSeconds],
  );
  return rows;
}

/**
 * Adds one failure to each bucket in the current window and returns the new counts. Buckets are
 * written in sorted order, so that two processes counting the same buckets cannot deadlock.
 */
export async function addFailure(db: Queryable, buckets: readonly string[], windowSeconds: number): Promise<BucketCount[]> {
  const { rows } = await db.query<BucketCount>(
    `INSERT INTO auth_failures AS f (bucket, window_start, failures)
       SELECT b.bucket, ${WINDOW}, 1 FROM unnest($1::text[]) AS b(bucket) ORDER BY b.bucket
     ON CONFLICT (bucket, window_start) DO UPDATE SET failures = f.failures + 1
     RETURNING bucket, failures, ${SECONDS_LEFT}`,
    [[...new Set(buckets)].sort(), windowSeconds],
  );
  return rows;
}

/** Deletes the counts of past windows; returns how many rows went. */
export async function pruneFailures(db: Queryable, windowSeconds: number): Promise<number> {
  const result = await db.query(`DELETE FROM auth_failures WHERE window_start < ${windowStart('$1')}`, [windowSeconds]);
  return result.rowCount ?? 0;
}
