// Group commit. Work items submitted while earlier batches are still running wait and are then
// run together, in one transaction, by `run`. A lane with nothing running starts its batch once the
// current turn of the event loop is over (setImmediate), so that the items submitted in one burst
// (the answers of one partner call, the requests read in one poll of the sockets) share a batch
// instead of the first going alone and the rest waiting for it; under light load an item so runs
// alone almost at once. Under heavy load items share a commit and the locks it takes. Items are grouped by
// key (for payouts: the prefund account they reserve from), so that batches that would queue on
// the same lock are few and large, while other keys run beside them. A batch that fails as a
// whole is retried item by item, so one bad item cannot fail its neighbours; except when it lost
// to concurrent transactions after all its attempts (DatabaseBusyError): no item caused that, and
// running each alone would only add to the contention.
import { DatabaseBusyError } from './database/transaction.ts';

export interface BatcherOptions<I, R> {
  run(items: I[]): Promise<R[]>;
  /** The most items one batch may take. */
  batchSizeMax: number;
  /** How many batches of one key may run at once (1: the next batch gathers while one runs). */
  concurrencyMax: number;
  /** Items of the same key share batches; default: one key for all. */
  keyOf?: (item: I) => string;
}

interface Waiting<I, R> {
  item: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

interface Lane<I, R> {
  queue: Array<Waiting<I, R>>;
  running: number;
  /** A start of batches is scheduled for the end of this turn of the event loop. */
  starting: boolean;
}

export function createBatcher<I, R>(options: BatcherOptions<I, R>) {
  const lanes = new Map<string, Lane<I, R>>();

  async function runBatch(batch: Array<Waiting<I, R>>): Promise<void> {
    try {
      const results = await options.run(batch.map((w) => w.item));
      if (results.length !== batch.length) throw new Error(`batch returned ${results.length} results for ${batch.length} items`);
      batch.forEach((w, i) => w.resolve(results[i]!));
    } catch (error) {
      if (batch.length === 1 || error instanceof DatabaseBusyError) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      for (const waiting of batch) {
        try {
          const [result] = await options.run([waiting.item]);
          waiting.resolve(result!);
        } catch (itemError) {
          waiting.reject(itemError);
        }
      }
    }
  }

  function pump(key: string, lane: Lane<I, R>): void {
    while (lane.running < options.concurrencyMax && lane.queue.length > 0) {
      const batch = lane.queue.splice(0, options.batchSizeMax);
      lane.running++;
      void runBatch(batch).finally(() => {
        lane.running--;
        if (lane.running === 0 && lane.queue.length === 0 && !lane.starting) lanes.delete(key);
        else pump(key, lane);
      });
    }
  }

  return {
    submit(item: I): Promise<R> {
      const key = options.keyOf?.(item) ?? '';
      let lane = lanes.get(key);
      if (!lane) lanes.set(key, (lane = { queue: [], running: 0, starting: false }));
      const target = lane;
      return new Promise<R>((resolve, reject) => {
        target.queue.push({ item, resolve, reject });
        if (target.starting || target.running >= options.concurrencyMax) return; // a batch ending takes it
        target.starting = true;
        setImmediate(() => {
          target.starting = false;
          pump(key, target);
          if (target.running === 0 && target.queue.length === 0 && lanes.get(key) === target) lanes.delete(key);
        });
      });
    },
  };
}
