// Migrations: applied once, in order, all or nothing, and serialised across concurrent boots.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startTestDatabase, type TestDatabase } from '../support/database.ts';
import { migrate } from '../../src/platform/database/migrate.ts';
import { createPool, type Db } from '../../src/platform/database/pool.ts';
import { workerLogger } from '../../src/platform/jobs.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { tempDataDir } from '../support/service.ts';

const logger = workerLogger(createLogger('silent'));
let database: TestDatabase;
let db: Db;

before(async () => {
  database = await startTestDatabase();
  db = createPool({ url: database.url, max: 10, applicationName: 'migrate-test' });
});
after(async () => {
  await db.end();
  await database.stop();
});

async function migrationsDir(files: Record<string, string>): Promise<string> {
  const dir = await tempDataDir();
  for (const [name, sql] of Object.entries(files)) await fs.writeFile(path.join(dir, name), sql);
  return dir;
}

async function tableExists(name: string): Promise<boolean> {
  const { rows } = await db.query('SELECT to_regclass($1) AS t', [name]);
  return rows[0].t !== null;
}

test('a failing migration rolls back the whole batch', async () => {
  const dir = await migrationsDir({
    '0001_good.sql': 'CREATE TABLE first_table (id int);',
    '0002_bad.sql': 'CREATE TABLE second_table (id int); SELECT no_such_function();',
  });
  await assert.rejects(migrate(db, logger, dir));
  assert.equal(await tableExists('first_table'), false);
  assert.equal(await tableExists('second_table'), false);
  const { rows } = await db.query('SELECT count(*)::int AS n FROM schema_migrations').catch(() => ({ rows: [{ n: 0 }] }));
  assert.equal(rows[0].n, 0);
});

test('five concurrent runs apply each migration once; a later run applies only what is new', async () => {
  const dir = await migrationsDir({
    '0001_counter.sql': 'CREATE TABLE counter (n int); INSERT INTO counter VALUES (1);',
    '0002_more.sql': 'UPDATE counter SET n = n + 1;',
  });
  const results = await Promise.all(Array.from({ length: 5 }, () => migrate(db, logger, dir)));
  assert.deepEqual(results.flat().sort(), ['0001', '0002']);
  assert.equal((await db.query('SELECT n FROM counter')).rows[0].n, 2);

  await fs.writeFile(path.join(dir, '0003_again.sql'), 'UPDATE counter SET n = n * 10;');
  assert.deepEqual(await migrate(db, logger, dir), ['0003']);
  assert.deepEqual(await migrate(db, logger, dir), []);
  assert.equal((await db.query('SELECT n FROM counter')).rows[0].n, 20);
});
