// The PostgreSQL pool and the one transaction helper every repository uses.
import pg from 'pg';

// NUMERIC and BIGINT come back as strings (pg's default): amounts stay exact decimal text.
export type Db = pg.Pool;
export type DbClient = pg.PoolClient;
/** Anything that can run a query: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

export interface PoolOptions {
  url: string;
  max: number;
  applicationName: string;
}

export function createPool(options: PoolOptions): Db {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max,
    application_name: options.applicationName,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 30_000,
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Database work only: queries through `client` and computation on their results. No partner,
 * venue or HTTP call, no timer, no state kept outside that outlives a failed attempt: the
 * transaction helper may run it again from the start (see withTransaction).
 */
export type DatabaseWork<T> = (client: DbClient) => Promise<T>;

const scopes = new WeakMap<object, Map<symbol, unknown>>();

/**
 * Scratch state that lives as long as the transaction open on `db` (for helpers that must know
 * what the transaction has already done, such as the ledger's lock-order check); undefined
 * outside inTransaction.
 */
export function transactionScope(db: Queryable): Map<symbol, unknown> | undefined {
  return scopes.get(db);
}

/** Runs fn in a transaction on a connection the caller holds: COMMIT when it resolves, ROLLBACK when it throws. Not retried. */
export async function inTransaction<T>(client: DbClient, fn: DatabaseWork<T>): Promise<T> {
  await client.query('BEGIN');
  scopes.set(client, new Map());
  try {
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    scopes.delete(client);
  }
}
