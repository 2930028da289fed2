// The transaction helper every domain uses, and the one place where a transaction that lost to a
// concurrent one is run again. PostgreSQL ends a transaction it picked as a deadlock victim
// (40P01), one that cannot be serialised (40001), or one that gave up on a lock (55P03); nothing
// of it was written, so running the whole transaction again from BEGIN is safe, provided the
// work inside is database work only (DatabaseWork: no partner or venue call, which could not be
// taken back). Calls to partners and venues are made outside transactions (STYLE: no network
// call while a row lock is held), so every withTransaction qualifies.
import { inTransaction, type DatabaseWork, type Db } from './pool.ts';

/** SQLSTATEs that say "this transaction lost a race; the same work may succeed if run again". */
export const TRANSIENT_SQLSTATES: ReadonlySet<string> = new Set(['40P01', '40001', '55P03']);

export function isTransientDatabaseError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && TRANSIENT_SQLSTATES.has(code);
}

/** A transaction still lost its race after every attempt: the caller answers 503 with Retry-After. */
export class DatabaseBusyError extends Error {
  override name = 'DatabaseBusyError';
  readonly attempts: number;
  readonly sqlState: string;

  constructor(attempts: number, cause: unknown) {
    super(`the transaction lost to concurrent ones ${attempts} times (${(cause as Error).message})`, { cause });
    this.attempts = attempts;
    this.sqlState = String((cause as { code?: unknown }).code);
  }
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attemptsMax: number;
  /** The n-th retry waits a random time in [0, min(backoffMaxMs, backoffBaseMs * 2^(n-1))]. */
  backoffBaseMs: number;
  backoffMaxMs: number;
}

export const TRANSACTION_RETRY: RetryPolicy = { attemptsMax: 5, backoffBaseMs: 5, backoffMaxMs: 100 };

/** Full jitter: losers of the same race do not meet again at the same moment. */
function backoffMs(policy: RetryPolicy, retry: number): number {
  return Math.random() * Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** (retry - 1));
}

/**
 * Runs `work` in a transaction on a connection of the pool: COMMIT when it resolves, ROLLBACK
 * when it throws. A transient failure (TRANSIENT_SQLSTATES) rolls the attempt back and runs the
 * whole transaction again after a short jittered wait, at most `policy.attemptsMax` times in
 * all; then DatabaseBusyError. Any other failure is thrown as it is, at once.
 */
export async function withTransaction<T>(db: Db, work: DatabaseWork<T>, policy: RetryPolicy = TRANSACTION_RETRY): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const client = await db.connect();
      try {
        return await inTransaction(client, work);
      } finally {
        client.release();
      }
    } catch (error) {
      if (!isTransientDatabaseError(error)) throw error;
      if (attempt >= policy.attemptsMax) throw new DatabaseBusyError(attempt, error);
      await new Promise((resolve) => setTimeout(resolve, backoffMs(policy, attempt)));
    }
  }
}
