// Group commit. Work items submitted while earlier batches are still running wait and are then
// run together, in one transaction, by `run`. Under light load an item runs alone at once (no
// added wait); under heavy load items share a commit and the locks it takes. A batch that fails
// as a whole is retried item by item, so one bad item cannot fail its neighbours.
export interface BatcherOptions<I, R> {
  run(items: I[]): Promise<R[]>;
  /** The most items one batch may take. */
  batchSizeMax: number;
  /** How many batches may run at once. */
  concurrencyMax: number;
}

interface Waiting<I, R> {
  item: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export function createBatcher<I, R>(options: BatcherOptions<I, R>) {
  const queue: Array<Waiting<I, R>> = [];
  let running = 0;

  async function runBatch(batch: Array<Waiting<I, R>>): Promise<void> {
    try {
      const results = await options.run(batch.map((w) => w.item));
      if (results.length !== batch.length) throw new Error(`batch returned ${results.length} results for ${batch.length} items`);
      batch.forEach((w, i) => w.resolve(results[i]!));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
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

  function pump(): void {
    while (running < options.concurrencyMax && queue.length > 0) {
      const batch = queue.splice(0, options.batchSizeMax);
      running++;
      void runBatch(batch).finally(() => {
        running--;
        pump();
      });
    }
  }

  return {
    submit(item: I): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        pump();
      });
    },
  };
}
