// A crash while payouts are being processed: kill -9 the service mid-way, start it again, and
// every payout ends in a correct state with the ledger balanced and nothing paid twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { spawnService, tempDataDir } from '../support/service.ts';
import { token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { checkLedger } from '../../src/ledger/service.ts';

const PAYOUTS = 40;
const ENV = { WORKERS: '2', SANDBOX_RAIL_LATENCY_MS: '300', PARTNER_TIMEOUT_MS: '500', PAYOUT_SUBMISSION_RECOVERY_SECONDS: '1' };

test('kill -9 during processing, restart: every payout settles once, the ledger balances', async () => {
  const dataDir = await tempDataDir();
  const first = await spawnService({ ...ENV, DATA_DIR: dataDir });
  const api = payoutApi(first.url, await token(first.url, { scope: 'payouts' }));
  const ids: string[] = [];
  for (let i = 0; i < PAYOUTS; i++) ids.push(String((await api.created(payoutBody(i % 2 ? 'MX_SPEI' : 'PH_GCASH', { payoutAmt: 100 + i })))['payoutId']));
  const inFlight = ids.map((id) => api.process(id).catch(() => undefined));
  await new Promise((r) => setTimeout(r, 150)); // submissions recorded, partners still thinking
  first.child.kill('SIGKILL');
  await first.exited;
  await Promise.all(inFlight);

  const second = await spawnService({ ...ENV, DATA_DIR: dataDir });
  const { url } = JSON.parse(await fs.readFile(path.join(dataDir, 'runtime.json'), 'utf8')) as { url: string };
  const db = new pg.Pool({ connectionString: url, max: 2 });
  try {
    const deadline = Date.now() + 30_000;
    let open = 1;
    while (open > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      open = (await db.query(`SELECT count(*)::int AS n FROM payouts WHERE submission_state IN ('SUBMITTING', 'IN_DOUBT')`)).rows[0].n;
    }
    assert.equal(open, 0, 'every recorded submission was finished: its partner asked, and sent again only when it never got it');
    const { rows } = await db.query(`
      SELECT p.payout_id, p.payout_status, p.submission_state,
             count(t.*) FILTER (WHERE t.state = 'POSTED')::int AS posted,
             count(t.*) FILTER (WHERE t.state = 'PENDING')::int AS pending,
             (SELECT count(*)::int FROM sandbox_rail_submissions s WHERE s.payout_id = p.payout_id) AS sent
        FROM payouts p LEFT JOIN ledger_transfers t ON t.reference = p.payout_id::text
       WHERE p.payout_id = ANY($1::uuid[]) GROUP BY p.payout_id`, [ids]);
    assert.equal(rows.length, PAYOUTS);
    let paid = 0;
    for (const row of rows) {
      if (row.payout_status === 'PRCD') {
        paid++;
        // MX_SPEI and PH_GCASH both charge a fee: two transfers, posted once
        assert.deepEqual([row.posted, row.pending, row.sent, row.submission_state], [2, 0, 1, 'SUBMITTED'], row.payout_id);
      } else {
        assert.equal(row.payout_status, 'ACCP', `${row.payout_id} is ${row.payout_status}`);
        assert.deepEqual([row.posted, row.pending, row.submission_state], [0, 2, 'NONE'], row.payout_id);
      }
    }
    assert.ok(paid > 0, 'some payouts had been submitted before the crash');
    assert.deepEqual(await checkLedger(db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
    // the ones never submitted can still be processed
    const api2 = payoutApi(second.url, await token(second.url, { scope: 'payouts' }));
    for (const row of rows.filter((r) => r.payout_status === 'ACCP').slice(0, 3)) {
      assert.equal((await api2.process(row.payout_id)).status, 200);
    }
  } finally {
    await db.end();
    assert.equal(await second.stop(), 0);
  }
});
