// Test support: where a test's database lives. By default each service data directory gets its
// own embedded PostgreSQL (the service starts it). With DATABASE_URL set when the tests run (an
// admin URL of a server we may create databases on, e.g. the distribution's PostgreSQL started by
// scripts/distro-postgres.ts), each data directory gets its own fresh database on that server
// instead, so test files and the services within one stay as isolated as with embedded clusters.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/platform/database/embedded.ts';

/** The server the tests were pointed at; taken out of the environment so no child inherits it. */
const SERVER_URL = process.env['DATABASE_URL'];
delete process.env['DATABASE_URL'];

const databaseOfDataDir = new Map<string, string>();

export function usesExternalServer(): boolean {
  return SERVER_URL !== undefined;
}

/** Creates an empty database on the external server and returns its URL (same credentials). */
async function createDatabase(serverUrl: string): Promise<string> {
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The DATABASE_URL a service on dataDir must be given: nothing with embedded clusters (the service
 * starts its own under dataDir), else the database made for dataDir, the same one on every
 * restart, as an embedded cluster keeps its data across restarts of the service.
 */
export async function databaseEnvFor(dataDir: string): Promise<Record<string, string>> {
  if (SERVER_URL === undefined) return {};
  const key = path.resolve(dataDir);
  let url = databaseOfDataDir.get(key);
  if (url === undefined) {
    url = await createDatabase(SERVER_URL);
    databaseOfDataDir.set(key, url);
  }
  return { DATABASE_URL: url };
}

export interface TestDatabase {
  /** Owner URL of an empty database (a role that may create roles and schemas). */
  url: string;
  stop(): Promise<void>;
}

/**
 * A database for tests that hand DATABASE_URL to services themselves (several processes on one
 * database, a least-privilege role): a fresh one on the external server, else its own embedded
 * cluster in a temporary directory.
 */
export async function startTestDatabase(): Promise<TestDatabase> {
  if (SERVER_URL !== undefined) return { url: await createDatabase(SERVER_URL), stop: async () => undefined };
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-test-db-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const embedded = await startEmbeddedPostgres(dir, { info: () => undefined, warn: () => undefined });
  return {
    url: embedded.url,
    async stop() {
      await embedded.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
