// How many requests one key (an endpoint; a member, over all its endpoints) may have in flight in
// this process. A delivery that finds its key at the bound waits for a slot only while the key's
// requests are answered quickly; when one of them has been out longer than SLOW_MS (a slow or
// hanging receiver), the delivery is refused at once instead (the caller puts it back), so that a
// slow key holds at most `max` workers while a fast one with a backlog keeps its slots busy
// without re-queueing churn. The refusal says which case it was, so the caller can back off from
// a slow key and come back soon to a merely busy one. `waitersMax` bounds the deliveries waiting
// for one key (each holds a worker while it waits): past it, BUSY at once.
const SLOW_MS = 250;
const WAIT_MS_MAX = 250;

export interface Slot {
  release(): void;
}

/** SLOW: a request of the key has been out longer than SLOW_MS; BUSY: the wait for a slot ran out. */
export type Refusal = 'SLOW' | 'BUSY';

interface KeyState {
  /** Start times of the requests in flight. */
  inFlight: Set<{ startedMs: number }>;
  waiters: Array<() => void>;
}

export interface Slots {
  /** A slot, or why none was given. */
  acquire(key: string): Promise<Slot | Refusal>;
  /** Requests in flight for the key (for tests and diagnostics). */
  inFlight(key: string): number;
}

export function createSlots(max: number, options: { waitersMax?: number; nowMs?: () => number } = {}): Slots {
  if (!Number.isInteger(max) || max < 1) throw new Error(`slots: max must be a positive integer, got ${max}`);
  const nowMs = options.nowMs ?? (() => performance.now());
  const waitersMax = options.waitersMax ?? Number.POSITIVE_INFINITY;
  const keys = new Map<string, KeyState>();

  function take(key: string, state: KeyState): Slot {
    const entry = { startedMs: nowMs() };
    state.inFlight.add(entry);
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        state.inFlight.delete(entry);
        const next = state.waiters.shift();
        if (next) next();
        else if (state.inFlight.size === 0) keys.delete(key);
      },
    };
  }

  const slow = (state: KeyState) => [...state.inFlight].some((r) => nowMs() - r.startedMs > SLOW_MS);

  return {
    async acquire(key) {
      let state = keys.get(key);
      if (!state) {
        state = { inFlight: new Set(), waiters: [] };
        keys.set(key, state);
      }
      if (state.inFlight.size < max) return take(key, state);
      if (slow(state)) return 'SLOW';
      if (state.waiters.length >= waitersMax) return 'BUSY';
      const waiting = state;
      return new Promise<Slot | Refusal>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          resolve(take(key, waiting));
        };
        const timer = setTimeout(() => {
          waiting.waiters.splice(waiting.waiters.indexOf(wake), 1);
          resolve('BUSY');
        }, WAIT_MS_MAX);
        waiting.waiters.push(wake);
      });
    },
    inFlight: (key) => keys.get(key)?.inFlight.size ?? 0,
  };
}
