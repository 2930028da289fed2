// The per-client rate limit holds across processes: two service processes on one database share
// one fixed-window count per client (counted locally, synced every RATE_LIMIT_SYNC_MS), so a
// client that spent its budget on one process is refused by the other.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { spawnService, tempDataDir, type ChildService } from '../support/service.ts';
import { bearer, token } from '../support/http.ts';
import { startTestDatabase, type TestDatabase } from '../support/database.ts';

const LIMIT = 20;
const SYNC_MS = 100;
let database: TestDatabase;
let a: ChildService;
let b: ChildService;

before(async () => {
  database = await startTestDatabase();
  const env = {
    DATABASE_URL: database.url, TOKEN_SIGNING_KEY: randomBytes(32).toString('base64'), CLIENT_SECRET_KEY: randomBytes(32).toString('base64'),
    RATE_LIMIT_PER_MINUTE: String(LIMIT), RATE_LIMIT_SYNC_MS: String(SYNC_MS), WORKERS: '0', WEBHOOK_WORKERS: '0',
  };
  a = await spawnService({ ...env, DATA_DIR: await tempDataDir() });
  b = await spawnService({ ...env, DATA_DIR: await tempDataDir() });
});
after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await database.stop();
});

async function statuses(url: string, accessToken: string, count: number): Promise<number[]> {
  const answers: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${url}/v2/purpose-codes`, { headers: bearer(accessToken) });
    await response.arrayBuffer();
    answers.push(response.status);
  }
  return answers;
}

/** Waits out the end of the current minute's window when it is near, so that the test runs inside one window. */
async function awayFromWindowEnd(): Promise<void> {
  const leftMs = 60_000 - (Date.now() % 60_000);
  if (leftMs < 10_000) await sleep(leftMs + 100);
}

test('a budget spent on one process is spent on the other: exactly the limit passes across both', async () => {
  await awayFromWindowEnd();
  const accessToken = await token(a.url, { scope: 'payouts' });
  const onA = await statuses(a.url, accessToken, 15);
  assert.deepEqual(onA, Array(15).fill(200));
  await sleep(SYNC_MS * 10); // A has sent its counts
  const onB = await statuses(b.url, accessToken, 10);
  assert.deepEqual(onB, [...Array(5).fill(200), ...Array(5).fill(429)], 'B knows of A\'s 15 from its first request');
  await sleep(SYNC_MS * 10); // A has read B's counts
  assert.deepEqual(await statuses(a.url, accessToken, 2), [429, 429], 'and A knows of B\'s');

  await sleep(SYNC_MS * 10); // A has sent its last counts
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const rows = await client.query<{ count: string }>("SELECT count FROM rate_limit_counters WHERE key LIKE 'client:%'");
    assert.equal(rows.rows.length, 1, 'one row per client and window');
    assert.equal(Number(rows.rows[0]!.count), 15 + 10 + 2, 'every request counted once');
    // ended windows' rows are deleted by the processes' syncs; the running window's stay
    await client.query("INSERT INTO rate_limit_counters (key, window_start_ms, count) VALUES ('client:old', $1, 5)", [Date.now() - 180_000]);
    const deadline = Date.now() + 10_000;
    let old = 1;
    while (old > 0 && Date.now() < deadline) {
      await sleep(200);
      old = (await client.query("SELECT 1 FROM rate_limit_counters WHERE key = 'client:old'")).rowCount ?? 0;
    }
    assert.equal(old, 0, 'the ended window is deleted');
    const kept = await client.query<{ count: string }>("SELECT count FROM rate_limit_counters WHERE key LIKE 'client:%'");
    assert.deepEqual(kept.rows.map((r) => Number(r.count)), [27], 'the running window is kept');
    const persistence = await client.query<{ relpersistence: string }>("SELECT relpersistence FROM pg_class WHERE relname = 'rate_limit_counters'");
    assert.equal(persistence.rows[0]!.relpersistence, 'u', 'UNLOGGED');
  } finally {
    await client.end();
  }
});
