// The shared fixed-window counters (table rate_limit_counters, UNLOGGED: a crash forgets at most
// the current minute's counts, which is harmless; nothing here is money).
import type { Queryable } from '../database/pool.ts';

export interface CounterIncrement {
  key: string;
  windowStartMs: number;
  /** May be 0: the row's total is read all the same. */
  count: number;
}

/**
 * Adds each increment to its (key, window) row, creating it; returns each row's total by
 * `${windowStartMs}:${key}`. Rows are written in one fixed order, so that two processes
 * syncing at once never deadlock. One (key, window) at most once in increments.
 */
export async function addCounts(db: Queryable, unordered: CounterIncrement[]): Promise<Map<string, number>> {
  const increments = [...unordered].sort((a, b) => a.windowStartMs - b.windowStartMs || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const result = await db.query<{ key: string; window_start_ms: string; count: string }>(
    `INSERT INTO rate_limit_counters AS c (key, window_start_ms, count)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) ORDER BY 2, 1
     ON CONFLICT (key, window_start_ms) DO UPDATE SET count = c.count + EXCLUDED.count
     RETURNING key, window_start_ms, count`,
    [increments.map((i) => i.key), increments.map((i) => i.windowStartMs), increments.map((i) => i.count)],
  );
  return new Map(result.rows.map((row) => [`${row.window_start_ms}:${row.key}`, Number(row.count)]));
}

/** Drops the rows of windows that ended before beforeMs. */
export async function deleteEndedWindows(db: Queryable, beforeMs: number): Promise<void> {
  await db.query('DELETE FROM rate_limit_counters WHERE window_start_ms < $1', [beforeMs]);
}
