// Versioned SQL migrations, applied at boot. One session-level advisory lock serialises every
// process that boots against the same database: the first applies what is missing inside one
// transaction, the others wait, then find nothing left to do. graphile-worker's own schema is
// migrated under the same lock.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMigrations, type Logger } from 'graphile-worker';
import { inTransaction, type Db, type DbClient } from './pool.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Arbitrary but fixed: the advisory lock key that all boot-time schema work takes. */
export const BOOT_LOCK_KEY = 7_310_001;

export interface Migration {
  version: string;
  name: string;
  sql: string;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await fs.readdir(dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => ({
      version: file.slice(0, 4),
      name: file.slice(5, -4),
      sql: await fs.readFile(path.join(dir, file), 'utf8'),
    })),
  );
}

/** Applies the pending migrations in one transaction; returns the versions it applied. */
async function applyPending(client: DbClient, migrations: Migration[]): Promise<string[]> {
  return inTransaction(client, async () => {
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: string }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((r) => r.version));
    const pending = migrations.filter((m) => !applied.has(m.version));
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
    }
    return pending.map((m) => m.version);
  });
}

/**
 * Runs fn while holding the boot lock on its own connection. Used for migrations and the sandbox
 * seed so that concurrent boots do each once.
 */
export async function withBootLock<T>(db: Db, fn: (client: DbClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [BOOT_LOCK_KEY]);
    try {
      return await fn(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [BOOT_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

export async function migrate(db: Db, workerLogger: Logger, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await readMigrations(dir);
  return withBootLock(db, async (client) => {
    const applied = await applyPending(client, migrations);
    await runMigrations({ pgPool: db, logger: workerLogger });
    return applied;
  });
}

export interface SchemaState {
  /** Migrations of this release that the database has not applied. */
  missing: string[];
  /** Versions the database has applied that this release does not know (a newer release migrated it). */
  unknown: string[];
  /** Whether graphile-worker's schema is installed. */
  workerSchema: boolean;
}

/**
 * What a process that may not migrate (MIGRATE_ON_START=false) checks at boot: reads only, so
 * it works for a role without DDL rights.
 */
export async function schemaState(db: Db, dir = MIGRATIONS_DIR): Promise<SchemaState> {
  const expected = (await readMigrations(dir)).map((m) => m.version);
  const found = await db.query<{ applied: string[] | null; worker: boolean }>(`SELECT
      (SELECT array_agg(version ORDER BY version) FROM schema_migrations) AS applied,
      to_regclass('graphile_worker.migrations') IS NOT NULL AS worker`).catch((error: unknown) => {
    if ((error as { code?: string }).code === '42P01') return { rows: [{ applied: [], worker: false }] };
    throw error;
  });
  const row = found.rows[0]!;
  const applied = new Set(row.applied ?? []);
  return {
    missing: expected.filter((version) => !applied.has(version)),
    unknown: [...applied].filter((version) => !expected.includes(version)),
    workerSchema: row.worker,
  };
}

/** Undefined when the schema is what this release expects; otherwise what an operator reads. */
export function schemaMismatch(state: SchemaState): string | undefined {
  if (state.missing.length > 0) {
    return `the database schema lacks migrations ${state.missing.join(', ')}; run \`npm run migrate\` (as a role with DDL rights) before starting, or set MIGRATE_ON_START=true`;
  }
  if (!state.workerSchema) return 'the job queue schema (graphile_worker) is not installed; run `npm run migrate` before starting';
  if (state.unknown.length > 0) {
    return `the database has migrations ${state.unknown.join(', ')} that this release does not know: it was migrated by a newer release`;
  }
  return undefined;
}
