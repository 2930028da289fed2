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

/** Socket errors that mean the database host or server cannot be reached, or dropped the connection. */
const UNREACHABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN']);
/**
 * SQLSTATEs of a server going away or not yet accepting work (shut down by an administrator,
 * crash shutdown, starting up). Class 08 (connection exception) counts too, and 55000 when the
 * database refuses connections (ALLOW_CONNECTIONS false during maintenance).
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03']);
/** pg's own errors for a connection that broke or never came (they carry no code). */
const UNREACHABLE_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;
const CAUSE_DEPTH_MAX = 3;

/**
 * Whether an error says the database is unreachable right now (an outage or a restart), as
 * opposed to a bug or a refused statement: such a request can be retried once the database is back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth <= CAUSE_DEPTH_MAX && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (UNREACHABLE_SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08')) return true;
      // the unix socket of a server that is down or restarting is not there
      if (code === 'ENOENT' && (current as { syscall?: unknown }).syscall === 'connect') return true;
      if (code === '55000' && /is not currently accepting connections/.test(current.message)) return true;
    }
    if (UNREACHABLE_MESSAGES.test(current.message)) return true;
    if (current instanceof AggregateError && current.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    current = current.cause;
  }
  return false;
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
