// How many requests each endpoint may have in flight in this process. A delivery that finds its
// endpoint at the bound waits for a slot only while the endpoint is answering quickly; when one of
// its requests has been out longer than SLOW_MS (a slow or hanging receiver), the delivery is put
// back instead (the caller re-queues it), so that a slow endpoint holds at most `max` workers
// while a fast one with a backlog keeps every worker busy without re-queueing churn.
const SLOW_MS = 250;
const WAIT_MS_MAX = 250;

export interface Slot {
  release(): void;
}

interface Endpoint {
  /** Start times of the requests in flight. */
  inFlight: Set<{ startedMs: number }>;
  waiters: Array<() => void>;
}

export interface EndpointSlots {
  /** A slot, or undefined when the endpoint is busy and slow (or stayed busy for WAIT_MS_MAX). */
  acquire(endpointId: string): Promise<Slot | undefined>;
}

export function createEndpointSlots(max: number, nowMs: () => number = () => performance.now()): EndpointSlots {
  const endpoints = new Map<string, Endpoint>();

  function take(id: string, state: Endpoint): Slot {
    const entry = { startedMs: nowMs() };
    state.inFlight.add(entry);
    return {
      release() {
        state.inFlight.delete(entry);
        const next = state.waiters.shift();
        if (next) next();
        else if (state.inFlight.size === 0) endpoints.delete(id);
      },
    };
  }

  const slow = (state: Endpoint) => [...state.inFlight].some((r) => nowMs() - r.startedMs > SLOW_MS);

  return {
    async acquire(id) {
      let state = endpoints.get(id);
      if (!state) {
        state = { inFlight: new Set(), waiters: [] };
        endpoints.set(id, state);
      }
      if (state.inFlight.size < max) return take(id, state);
      if (slow(state)) return undefined;
      const waiting = state;
      return new Promise<Slot | undefined>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          resolve(take(id, waiting));
        };
        const timer = setTimeout(() => {
          waiting.waiters.splice(waiting.waiters.indexOf(wake), 1);
          resolve(undefined);
        }, WAIT_MS_MAX);
        waiting.waiters.push(wake);
      });
    },
  };
}
