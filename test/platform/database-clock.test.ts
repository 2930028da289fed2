// The service's clock follows the database's: a process whose own clock is an hour off still reads
// the database's time, keeps its last reading through an outage, and follows a change of its own clock.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDatabaseClock } from '../../src/platform/database/clock.ts';
import { createPool, type Db } from '../../src/platform/database/pool.ts';
import { startTestDatabase, type TestDatabase } from '../support/database.ts';

let database: TestDatabase;
let db: Db;
before(async () => {
  database = await startTestDatabase();
  db = createPool({ url: database.url, max: 2, applicationName: 'clock-test' });
});
after(async () => {
  await db?.end();
  await database?.stop();
});

const databaseNow = async () => Number((await db.query<{ ms: string }>(`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS ms`)).rows[0]!.ms);
const HOUR = 3_600_000;

test('a process whose clock is an hour ahead reads the database\'s time (within the round trip)', async () => {
  const clock = await createDatabaseClock(db, { local: () => Date.now() + HOUR });
  try {
    const before = await databaseNow();
    const now = clock.now().getTime();
    const after = await databaseNow();
    assert.ok(now >= before - 50 && now <= after + 50, `${now} not within [${before}, ${after}]`);
    assert.ok(Math.abs(clock.offsetMs() + HOUR) < 1000, `offset ${clock.offsetMs()}`);
  } finally {
    clock.stop();
  }
});

test('when the database cannot be read the last offset is kept; a later reading follows a change of the process clock', async () => {
  let skew = -HOUR;
  const errors: unknown[] = [];
  const pool = createPool({ url: database.url, max: 1, applicationName: 'clock-test-outage' });
  const clock = await createDatabaseClock(pool, { local: () => Date.now() + skew, onError: (e) => errors.push(e) });
  try {
    const offset = clock.offsetMs();
    assert.ok(Math.abs(offset - HOUR) < 1000);
    await pool.end(); // the database is gone for this process
    skew = 0;
    assert.equal(await clock.sync(), false);
    assert.equal(errors.length, 1);
    assert.equal(clock.offsetMs(), offset);
    // its clock jumped to the right time, the stale offset now puts it an hour ahead: a new reading mends it
    const fresh = await createDatabaseClock(db, { local: () => Date.now() + skew });
    assert.ok(Math.abs(fresh.offsetMs()) < 1000);
    fresh.stop();
  } finally {
    clock.stop();
  }
});

test('a database that cannot be read at all at start is refused', async () => {
  const pool = createPool({ url: database.url, max: 1, applicationName: 'clock-test-none' });
  await pool.end();
  await assert.rejects(createDatabaseClock(pool), /the database clock could not be read/);
});
