// With its workers running, the service carries settlements through on its own: an IMMEDIATE one
// completes within 10 seconds, and a kill -9 in the middle of a batch loses and repeats nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { spawnService, startTestService, tempDataDir } from '../support/service.ts';
import { bearer, json, token } from '../support/http.ts';
import { checkLedger } from '../../src/ledger/service.ts';
import { settlementApi, type Json } from '../support/settlements.ts';


const settle = async (url: string, auth: string, destination = 'PARTNER_MX', amount = 100) =>
  String((await settlementApi(url, auth).settle(destination, { settlementAmt: amount }))['settlementId']);

test('an IMMEDIATE settlement reaches S600_COMPLETED on its own within 10 seconds', async () => {
  const service = await startTestService({ WORKERS: '2' });
  try {
    const auth = await token(service.url, { scope: 'settlements' });
    const started = Date.now();
    const id = await settle(service.url, auth);
    let record: Json = {};
    while (record['settlementStatus'] !== 'S600_COMPLETED' && Date.now() - started < 10_000) {
      await new Promise((r) => setTimeout(r, 100));
      record = await json(await fetch(`${service.url}/v2/settlements/${id}`, { headers: bearer(auth) }));
    }
    assert.equal(record['settlementStatus'], 'S600_COMPLETED', `after ${Date.now() - started} ms`);
    assert.equal(record['pendingAmt'], 0);
  } finally {
    await service.stop();
  }
});

test('kill -9 during a batch of settlements, restart: each completes once, one chain transfer each, prefund credited once', async () => {
  const SETTLEMENTS = 20;
  const dataDir = await tempDataDir();
  const first = await spawnService({ WORKERS: '2', DATA_DIR: dataDir });
  const auth = await token(first.url, { scope: 'settlements' });
  const ids: string[] = [];
  for (let i = 0; i < SETTLEMENTS; i++) ids.push(await settle(first.url, auth, i % 2 ? 'PARTNER_MX' : 'PARTNER_PH', 100 + i));
  // kill it once some are between steps (bought, on chain, being deposited)
  const inFlight = async () => {
    let n = 0;
    for (const status of ['S300_IN_PROGRESS', 'S400_FIAT_WITHDRAWAL_IN_PROGRESS']) {
      n += (await json<{ totalRecords: number }>(await fetch(`${first.url}/v2/settlements?settlementStatus=${status}&size=1`, { headers: bearer(auth) }))).totalRecords;
    }
    return n;
  };
  const waitUntil = Date.now() + 10_000;
  while ((await inFlight()) === 0 && Date.now() < waitUntil) await new Promise((r) => setTimeout(r, 50));
  first.child.kill('SIGKILL');
  await first.exited;
  // the orphaned PostgreSQL still answers: the crash caught settlements mid-way
  const { url: orphanUrl } = JSON.parse(await fs.readFile(path.join(dataDir, 'runtime.json'), 'utf8')) as { url: string };
  const orphan = new pg.Client({ connectionString: orphanUrl });
  await orphan.connect();
  const midway = (await orphan.query(`SELECT count(*)::int AS n FROM settlements WHERE settlement_status IN ('S300_IN_PROGRESS', 'S400_FIAT_WITHDRAWAL_IN_PROGRESS')`)).rows[0].n;
  await orphan.end();
  assert.ok(midway > 0, 'some settlements were between steps when the service died');

  const second = await spawnService({ WORKERS: '2', DATA_DIR: dataDir });
  const { url } = JSON.parse(await fs.readFile(path.join(dataDir, 'runtime.json'), 'utf8')) as { url: string };
  const db = new pg.Pool({ connectionString: url, max: 2 });
  try {
    // a job the dead process held is freed once its worker has been silent for 30 s (platform/jobs.ts)
    const deadline = Date.now() + 90_000;
    let open = SETTLEMENTS;
    while (open > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      open = (await db.query(`SELECT count(*)::int AS n FROM settlements WHERE settlement_id = ANY($1::uuid[]) AND settlement_status <> 'S600_COMPLETED'`, [ids])).rows[0].n;
    }
    if (open > 0) {
      const stuck = await db.query(
        `SELECT s.settlement_id, s.settlement_status, (SELECT array_agg(step ORDER BY done_at) FROM settlement_steps x WHERE x.settlement_id = s.settlement_id) AS steps,
                (SELECT array_agg(r.reason) FROM settlement_reviews r WHERE r.settlement_id = s.settlement_id) AS reviews,
                (SELECT array_agg(t.identifier || ' attempts ' || j.attempts || ' ' || coalesce(j.last_error, '') || ' locked ' || coalesce(j.locked_by, '-'))
                   FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE j.key = 'settlement:' || s.settlement_id) AS jobs
           FROM settlements s WHERE s.settlement_id = ANY($1::uuid[]) AND s.settlement_status <> 'S600_COMPLETED'`, [ids]);
      assert.fail(`not completed: ${JSON.stringify(stuck.rows)}`);
    }
    const { rows } = await db.query(`
      SELECT s.settlement_id, (s.settlement_amt_received * 100)::numeric(30, 0)::text AS received, -- MXN and PHP: 2 decimals
             (SELECT count(*)::int FROM sandbox_venue_operations v WHERE v.reference = s.settlement_id || ':TRANSFER') AS transfers,
             (SELECT count(*)::int FROM ledger_transfers t WHERE t.reference = s.settlement_id::text AND t.reason = 'SETTLEMENT_IN') AS ins,
             (SELECT array_agg(t.amount::text) FROM ledger_transfers t WHERE t.reference = s.settlement_id::text AND t.reason = 'SETTLEMENT_OUT') AS outs,
             (SELECT count(*)::int FROM events e WHERE e.resource_id = s.settlement_id::text) AS events
        FROM settlements s WHERE s.settlement_id = ANY($1::uuid[])`, [ids]);
    for (const row of rows) {
      assert.deepEqual([row.transfers, row.ins, row.outs.length, row.events], [1, 1, 1, 4], row.settlement_id);
      assert.equal(row.outs[0], row.received, 'the prefund credit is the amount received');
    }
    assert.deepEqual(await checkLedger(db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
  } finally {
    await db.end();
    assert.equal(await second.stop(), 0);
  }
});
