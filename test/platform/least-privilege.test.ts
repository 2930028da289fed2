// Migrations as their own step (`npm run migrate`) and the service run by a role with data
// rights only (docs/sql/runtime-role.sql) and MIGRATE_ON_START=false: it starts, pays out end
// to end, and DDL is refused to it; against a database not yet migrated it refuses to start.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { ROOT, runServiceExpectingFailure, startTestService, tempDataDir } from '../support/service.ts';
import { token } from '../support/http.ts';
import { eventually, payoutApi, payoutBody } from '../support/payouts.ts';
import { startTestDatabase, type TestDatabase } from '../support/database.ts';
import { readMigrations } from '../../src/platform/database/migrate.ts';
import { checkLedger } from '../../src/ledger/service.ts';

const RUNTIME_PASSWORD = 'runtime-password-for-tests';
let database: TestDatabase;

before(async () => {
  database = await startTestDatabase();
});
after(async () => {
  await database.stop();
});

function npmRunMigrate(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(path.join(ROOT, 'node_modules/.bin/node'), ['src/migrate.ts'], {
    cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

async function asOwner<T>(fn: (client: pg.Client) => Promise<T>, url = database.url): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function runtimeUrl(): string {
  const url = new URL(database.url);
  url.username = 'payments_runtime';
  url.password = RUNTIME_PASSWORD;
  return url.toString();
}

test('MIGRATE_ON_START=false refuses to start on a database that is not migrated, and says what to run', async () => {
  const result = await runServiceExpectingFailure({ DATABASE_URL: database.url, DATA_DIR: await tempDataDir(), MIGRATE_ON_START: 'false', WORKERS: '0' });
  assert.equal(result.code, 1);
  assert.match(result.output, /MIGRATE_ON_START=false and the database schema lacks migrations 0001, .*run `npm run migrate`/);
});

test('npm run migrate applies every migration and exits; a second run finds nothing to do', async () => {
  const first = await npmRunMigrate({ DATABASE_URL: database.url });
  assert.equal(first.code, 0, first.output);
  assert.match(first.output, /database migrations applied/);
  const versions = await asOwner((c) => c.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version'));
  assert.deepEqual(versions.rows.map((r) => r.version), (await readMigrations()).map((m) => m.version));
  const second = await npmRunMigrate({ DATABASE_URL: database.url });
  assert.equal(second.code, 0, second.output);
  assert.match(second.output, /database schema already up to date/);
});

test('npm run migrate without DATABASE_URL initialises and migrates the embedded database under DATA_DIR, then stops it', async () => {
  const dataDir = await tempDataDir();
  const first = await npmRunMigrate({ DATA_DIR: dataDir });
  assert.equal(first.code, 0, first.output);
  assert.match(first.output, /database migrations applied/);
  await assert.rejects(fs.stat(path.join(dataDir, 'runtime.json')), 'the embedded database is stopped again');
  // the embedded database the command left under DATA_DIR, also when the tests run on a server (empty is unset)
  const service = await startTestService({ DATA_DIR: dataDir, DATABASE_URL: '', MIGRATE_ON_START: 'false', WORKERS: '0', WEBHOOK_WORKERS: '0' });
  try {
    assert.equal((await fetch(`${service.url}/readyz`)).status, 200);
  } finally {
    await service.stop();
  }
});

test('a runtime role with data rights only runs the service (MIGRATE_ON_START=false) and pays out end to end', async () => {
  const grants = await fs.readFile(path.join(ROOT, 'docs/sql/runtime-role.sql'), 'utf8');
  await asOwner(async (c) => {
    await c.query(`CREATE ROLE payments_runtime LOGIN PASSWORD '${RUNTIME_PASSWORD}'`);
    await c.query(grants);
  });
  const service = await startTestService({ DATABASE_URL: runtimeUrl(), MIGRATE_ON_START: 'false', WORKERS: '2' });
  try {
    const user = await service.db.query<{ current_user: string; rolsuper: boolean }>(
      'SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user');
    assert.deepEqual(user.rows[0], { current_user: 'payments_runtime', rolsuper: false });
    const api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
    const id = String((await api.created(payoutBody('MX_SPEI')))['payoutId']);
    assert.equal((await api.process(id)).status, 200);
    const done = await eventually(() => api.record(id), (r) => r['payoutStatus'] === 'PRCD');
    assert.equal(done['payoutStatus'], 'PRCD');
    const ready = await fetch(`${service.url}/readyz`);
    assert.equal(ready.status, 200);
    const ledger = await checkLedger(service.db);
    assert.deepEqual(ledger, { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
  } finally {
    await service.stop();
  }
});

test('DDL is refused to the runtime role', async () => {
  await asOwner(async (c) => {
    for (const ddl of [
      'CREATE TABLE public.intruder (id int)',
      'ALTER TABLE payouts ADD COLUMN intruder int',
      'DROP TABLE payouts',
      'TRUNCATE ledger_transfers',
      'CREATE TABLE graphile_worker.intruder (id int)',
      "INSERT INTO schema_migrations (version, name) VALUES ('9999', 'intruder')",
    ]) {
      await assert.rejects(c.query(ddl), (error: { code?: string }) => error.code === '42501', ddl);
    }
  }, runtimeUrl());
});
