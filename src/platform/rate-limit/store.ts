// A rate-limit store for @fastify/rate-limit whose fixed-window counts are shared by every
// process on the database, without a database round trip per request:
//  - the first request of a client in a window (per process) adds itself in the database and
//    learns the total so far (one round trip per client per window per process);
//  - later requests are counted locally and answered at once from the last known total plus
//    this process's unsent count;
//  - every syncIntervalMs one statement adds all unsent counts and reads back every known
//    client's total (what the other processes counted).
// So the limit holds across processes up to what the others count within one sync interval.
// A database error leaves the counts unsent (sent at the next sync) and the limiter counting
// locally: the limiter never refuses requests because the database is away.
import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../database/pool.ts';
import { addCounts, deleteEndedWindows, type CounterIncrement } from './repo.ts';

/** Clients one process tracks per window at most; past that, new ones are counted locally only. */
export const TRACKED_KEYS_MAX = 50_000;
/** Ended windows' rows are deleted once per this many syncs. */
const CLEANUP_EVERY_SYNCS = 20;

interface Entry {
  key: string;
  windowStartMs: number;
  /** The total the database last reported (every process's counts). */
  shared: number;
  /** Counted here since, not yet sent. */
  unsent: number;
  /** The first request's round trip, while it is under way. */
  loading?: Promise<void>;
}

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

export interface SharedRateLimit {
  incr(key: string, callback: Callback, timeWindowMs: number): void;
  /** Sends what is unsent now (tests, and the stop). */
  sync(): Promise<void>;
  stop(): Promise<void>;
}

export function createSharedRateLimit(options: { db: Queryable; syncIntervalMs: number; log: FastifyBaseLogger }): SharedRateLimit {
  const { db, syncIntervalMs, log } = options;
  const entries = new Map<string, Entry>();
  let syncing: Promise<void> | undefined;
  let syncs = 0;

  const answer = (entry: Entry, timeWindowMs: number, callback: Callback) => {
    callback(null, { current: entry.shared + entry.unsent, ttl: entry.windowStartMs + timeWindowMs - Date.now() });
  };

  const load = async (entry: Entry) => {
    const sent = entry.unsent; // requests arriving meanwhile stay unsent, for the next sync
    try {
      const totals = await addCounts(db, [{ key: entry.key, windowStartMs: entry.windowStartMs, count: sent }]);
      entry.shared = totals.get(`${entry.windowStartMs}:${entry.key}`) ?? entry.shared + sent;
      entry.unsent -= sent;
    } catch (error) {
      log.warn({ err: error }, 'rate limit: the shared count could not be read; counting locally');
    }
  };

  const syncNow = async () => {
    const nowMs = Date.now();
    const increments: CounterIncrement[] = [];
    const sent = new Map<Entry, number>();
    for (const [id, entry] of entries) {
      if (entry.loading !== undefined) continue;
      // an ended window's unsent counts no longer limit anyone: dropped
      if (entry.windowStartMs + windowMsOf(id) <= nowMs) {
        entries.delete(id);
        continue;
      }
      increments.push({ key: entry.key, windowStartMs: entry.windowStartMs, count: entry.unsent });
      sent.set(entry, entry.unsent);
    }
    if (increments.length === 0) return;
    try {
      const totals = await addCounts(db, increments);
      for (const [entry, count] of sent) {
        entry.unsent -= count;
        entry.shared = totals.get(`${entry.windowStartMs}:${entry.key}`) ?? entry.shared + count;
      }
      if (++syncs % CLEANUP_EVERY_SYNCS === 0) await deleteEndedWindows(db, oldestLiveWindowMs(nowMs));
    } catch (error) {
      log.warn({ err: error }, 'rate limit: the shared counts could not be synced; they are sent at the next sync');
    }
  };
  // windows are kept per (length, start): the map's id carries the length
  const windowMsOf = (id: string) => Number(id.slice(0, id.indexOf('|')));
  /** The start of the oldest window still running, over every window length this process has used. */
  const windowLengthsMs = new Set<number>();
  const oldestLiveWindowMs = (nowMs: number) => {
    let oldest = nowMs;
    for (const lengthMs of windowLengthsMs) oldest = Math.min(oldest, nowMs - (nowMs % lengthMs));
    return oldest;
  };

  const sync = () => (syncing ??= syncNow().finally(() => (syncing = undefined)));
  const timer = setInterval(() => void sync(), syncIntervalMs);
  timer.unref();

  return {
    incr(key, callback, timeWindowMs) {
      const nowMs = Date.now();
      const windowStartMs = nowMs - (nowMs % timeWindowMs);
      windowLengthsMs.add(timeWindowMs);
      const id = `${timeWindowMs}|${key}`;
      let entry = entries.get(id);
      if (entry !== undefined && entry.windowStartMs !== windowStartMs) {
        entries.delete(id);
        entry = undefined;
      }
      if (entry === undefined) {
        entry = { key, windowStartMs, shared: 0, unsent: 1 };
        if (entries.size >= TRACKED_KEYS_MAX) return answer(entry, timeWindowMs, callback);
        entries.set(id, entry);
        const created = entry;
        created.loading = load(created).finally(() => (created.loading = undefined));
        void created.loading.then(() => answer(created, timeWindowMs, callback));
        return;
      }
      entry.unsent += 1;
      if (entry.loading !== undefined) {
        const loading = entry;
        void entry.loading.then(() => answer(loading, timeWindowMs, callback));
        return;
      }
      answer(entry, timeWindowMs, callback);
    },
    sync,
    async stop() {
      clearInterval(timer);
      await sync();
    },
  };
}
