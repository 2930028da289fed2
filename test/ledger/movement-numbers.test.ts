// Migration 0023 on a ledger that already has history: every existing movement (a transfer's
// creation, and the post or void of a two-phase one) is numbered in the order of its times, new
// movements number after them, and a number, once given, never changes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startTestDatabase, type TestDatabase } from '../support/database.ts';
import { migrate, readMigrations } from '../../src/platform/database/migrate.ts';
import { createPool, type Db } from '../../src/platform/database/pool.ts';
import { workerLogger } from '../../src/platform/jobs.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { tempDataDir } from '../support/service.ts';

const logger = workerLogger(createLogger('silent'));
let database: TestDatabase;
let db: Db;

before(async () => {
  database = await startTestDatabase();
  db = createPool({ url: database.url, max: 4, applicationName: 'movement-numbers-test' });
});
after(async () => {
  await db.end();
  await database.stop();
});

const T = (minute: number) => new Date(Date.UTC(2026, 10, 1, 12, minute)).toISOString();
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

test('existing movements are numbered by time; new ones follow; numbers never change', async () => {
  const dir = await tempDataDir();
  const all = await readMigrations();
  const write = async (keep: (version: string) => boolean) => {
    for (const m of all.filter((m) => keep(m.version))) await fs.writeFile(path.join(dir, `${m.version}_${m.name}.sql`), m.sql);
  };
  await write((v) => v < '0023');
  await migrate(db, logger, dir);

  await db.query(`INSERT INTO members (member_id, name, kind, country_code, currencies) VALUES ('S', 'S', 'SOURCE', 'US', '{USD}'), ('D', 'D', 'DESTINATION', 'MX', '{MXN}')`);
  await db.query(`INSERT INTO ledger_accounts (kind, source_member_id, destination_member_id, currency, no_overdraft) VALUES
    ('PREFUND', 'S', 'D', 'MXN', true), ('FUNDING', NULL, 'D', 'MXN', false), ('PAYOUT_CLEARING', NULL, 'D', 'MXN', false)`);
  const [prefund, funding, clearing] = (await db.query('SELECT account_id FROM ledger_accounts ORDER BY account_id')).rows.map((r) => r.account_id);
  // (transfer, debit, credit, state, two_phase, created minute, resolved minute)
  const history: Array<[number, string, string, string, boolean, number, number | null]> = [
    [1, funding, prefund, 'POSTED', false, 0, null],
    [2, prefund, clearing, 'POSTED', true, 1, 5], // reserved at 1, posted at 5
    [3, prefund, clearing, 'VOIDED', true, 2, 3], // reserved at 2, released at 3
    [4, prefund, clearing, 'PENDING', true, 4, null],
    [5, funding, prefund, 'POSTED', false, 6, null],
  ];
  for (const [n, debit, credit, state, twoPhase, created, resolved] of history) {
    await db.query(
      `INSERT INTO ledger_transfers (transfer_id, debit_account_id, credit_account_id, amount, currency, state, two_phase, reason, reference, created_at, resolved_at)
       VALUES ($1, $2, $3, 10, 'MXN', $4, $5, 'TEST', 'r', $6, $7)`,
      [id(n), debit, credit, state, twoPhase, T(created), resolved === null ? null : T(resolved)]);
  }

  await write((v) => v <= '0023');
  assert.deepEqual(await migrate(db, logger, dir), ['0023']);
  const numbered = async () => (await db.query(
    `SELECT transfer_id AS t, created_seq::int AS c, resolved_seq::int AS r FROM ledger_transfers ORDER BY created_seq`)).rows;
  // in time order: 1 created (0), 2 created (1), 3 created (2), 3 voided (3), 4 created (4), 2 posted (5), 5 created (6)
  assert.deepEqual(await numbered(), [
    { t: id(1), c: 1, r: null }, { t: id(2), c: 2, r: 6 }, { t: id(3), c: 3, r: 4 }, { t: id(4), c: 5, r: null }, { t: id(5), c: 7, r: null },
  ]);

  // a new movement takes the next number; posting the pending reservation takes the one after
  await db.query(`INSERT INTO ledger_transfers (transfer_id, debit_account_id, credit_account_id, amount, currency, state, two_phase, reason, reference)
                  VALUES ($1, $2, $3, 1, 'MXN', 'POSTED', false, 'TEST', 'r')`, [id(6), funding, prefund]);
  await db.query(`UPDATE ledger_transfers SET state = 'POSTED', resolved_at = now(), resolved_seq = nextval('ledger_movement_seq') WHERE transfer_id = $1`, [id(4)]);
  const after = await numbered();
  assert.deepEqual(after.slice(-2), [{ t: id(5), c: 7, r: null }, { t: id(6), c: 8, r: null }]);
  assert.deepEqual(after.find((row) => row.t === id(4)), { t: id(4), c: 5, r: 9 });

  // numbers never change, and a resolved transfer must carry one
  await assert.rejects(db.query('UPDATE ledger_transfers SET created_seq = 100 WHERE transfer_id = $1', [id(1)]), /PENDING/);
  await db.query(`INSERT INTO ledger_transfers (transfer_id, debit_account_id, credit_account_id, amount, currency, state, two_phase, reason, reference)
                  VALUES ($1, $2, $3, 1, 'MXN', 'PENDING', true, 'TEST', 'r')`, [id(7), prefund, clearing]);
  await assert.rejects(db.query(`UPDATE ledger_transfers SET state = 'VOIDED' WHERE transfer_id = $1`, [id(7)]), /ledger_transfers_resolved_seq/);
  await assert.rejects(db.query(`UPDATE ledger_transfers SET state = 'VOIDED', resolved_seq = 1, created_seq = 1000 WHERE transfer_id = $1`, [id(7)]), /may only move/);
});
