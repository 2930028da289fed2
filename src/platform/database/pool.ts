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

/** Runs fn in a transaction on a connection the caller holds: COMMIT when it resolves, ROLLBACK when it throws. */
export async function inTransaction<T>(client: DbClient, fn: (client: DbClient) => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Runs fn in a transaction on a connection of the pool. */
export async function withTransaction<T>(db: Db, fn: (client: DbClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    return await inTransaction(client, fn);
  } finally {
    client.release();
  }
}
