// Proof: production mode against the reference partner under its fault matrix (rejections,
// failures, late payments, returns, timeouts before and after the partner recorded the payout,
// a briefly unavailable partner, duplicate and out-of-order reports, cancellations), with the
// service killed (SIGKILL) while payouts are in flight and started again. Then both books are
// reconciled: no payout paid twice, no paid payout whose reservation was released, every payout
// final (or parked for review), our ledger balanced and equal to what the partner paid.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { freeLoopbackPort } from '../../src/platform/database/embedded.ts';
import { seedForProduction, spawnService, type ChildService } from '../support/service.ts';
import { token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { connectReferencePartner, spawnReferencePartner, type ReferencePartner } from '../support/reference-partner.ts';
import type { Behaviour } from '../../partner/server.ts';
import { checkLedger } from '../../src/ledger/service.ts';

const PAYOUTS = 48;
const FINAL = ['PRCD', 'RJCT', 'FAIL', 'CNCL', 'EXPD', 'RVSD'];

/** The fault matrix: one behaviour per payout, by its index. */
function behaviourOf(i: number): Behaviour {
  const matrix: Behaviour[] = [
    {},
    { outcome: 'REJECT' },
    { outcome: 'FAIL', reportAfterMs: 150 },
    { outcome: 'PAY_LATER', reportAfterMs: 200, reports: 'DUPLICATE' },
    { outcome: 'PAY_THEN_RETURN', reportAfterMs: 150, reports: 'OUT_OF_ORDER' },
    { hang: 'AFTER_RECEIVING', once: true }, // recorded and paid, the answer lost
    { hang: 'BEFORE_RECEIVING', once: true }, // never recorded, the call timed out
    { errorStatus: 503, once: true }, // briefly unavailable, then fine
    { latencyMs: 250 },
  ];
  return matrix[i % matrix.length]!;
}

/** Decimal text ("123.4", "99") in hundredths, exactly. */
function cents(text: string): bigint {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole! + fraction.padEnd(2, '0').slice(0, 2));
}

let dataDir: string;
let env: Record<string, string>;
let service: ChildService | undefined;
let partner: ReferencePartner;
let db: pg.Pool;
let credentials: { clientId: string; secret: string };

before(async () => {
  const seeded = await seedForProduction(['payouts']);
  dataDir = seeded.dataDir;
  credentials = seeded.credentials;
  env = {
    ...seeded.env, WORKERS: '2', PORT: String(await freeLoopbackPort()),
    PARTNER_TIMEOUT_MS: '600', PAYOUT_SUBMISSION_RECOVERY_SECONDS: '2', PARTNER_CONNECTIONS_REFRESH_MS: '200',
  };
  service = await spawnService(env);
  partner = await spawnReferencePartner({ serviceUrl: service.url });
  const { url } = JSON.parse(await fs.readFile(path.join(dataDir, 'runtime.json'), 'utf8')) as { url: string };
  db = new pg.Pool({ connectionString: url, max: 3 });
  db.on('error', () => undefined); // idle connections end when the killed service's database restarts
  await connectReferencePartner(db, partner);
});
after(async () => {
  await db?.end();
  await partner?.stop();
  await service?.stop();
});

async function states(ids: string[]) {
  const { rows } = await db.query<{ payout_id: string; payout_status: string; submission_state: string; parked: boolean }>(
    `SELECT payout_id, payout_status, submission_state,
            EXISTS (SELECT 1 FROM payout_reviews r WHERE r.payout_id = p.payout_id AND r.resolved_at IS NULL) AS parked
       FROM payouts p WHERE payout_id = ANY($1::uuid[])`, [ids]);
  return rows;
}

test('kill -9 mid-flight under the fault matrix: both books agree, nothing paid twice, nothing released that was paid', async () => {
  let api = payoutApi(service!.url, await token(service!.url, { ...credentials, scope: 'payouts' }));
  const ids: string[] = [];
  for (let i = 0; i < PAYOUTS; i++) {
    const id = String((await api.created(payoutBody('MX_SPEI', { payoutAmt: 100 + i })))['payoutId']);
    await partner.behave(behaviourOf(i), id);
    ids.push(id);
  }
  const inFlight = ids.map(async (id, i) => {
    await api.process(id).catch(() => undefined);
    if (i % 5 === 0) await api.cancel(id).catch(() => undefined);
  });
  await new Promise((r) => setTimeout(r, 400)); // submissions recorded, some partners still thinking
  service!.child.kill('SIGKILL');
  await service!.exited;
  await Promise.all(inFlight);

  service = await spawnService(env);
  api = payoutApi(service.url, await token(service.url, { ...credentials, scope: 'payouts' }));
  const deadline = Date.now() + 90_000;
  let open = await states(ids);
  while (Date.now() < deadline) {
    open = (await states(ids)).filter((r) => !FINAL.includes(r.payout_status) && !r.parked);
    if (open.length === 0) break;
    // a client whose process call died with the service calls it again
    for (const row of open.filter((r) => r.payout_status === 'ACCP' && r.submission_state === 'NONE')) await api.process(row.payout_id);
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.deepEqual(open.map((r) => `${r.payout_id} ${r.payout_status} ${r.submission_state}`), [], 'every payout final or parked');

  const books = await partner.books();
  const theirs = new Map(books.payouts.map((p) => [p.payoutId, p]));
  const ours = await states(ids);
  const { rows: transfers } = await db.query<{ reference: string; state: string; n: number }>(
    `SELECT reference, state, count(*)::int AS n FROM ledger_transfers WHERE reference = ANY($1::text[]) GROUP BY reference, state`, [ids]);
  const ledgerOf = (id: string) => Object.fromEntries(transfers.filter((t) => t.reference === id).map((t) => [t.state, t.n]));
  let paidByUs = 0n;
  for (const row of ours) {
    const partnerRow = theirs.get(row.payout_id);
    const ledger = ledgerOf(row.payout_id);
    const label = `${row.payout_id} ours ${row.payout_status} theirs ${partnerRow?.status ?? 'never received'} ledger ${JSON.stringify(ledger)}`;
    if (row.parked) continue; // an operator decides; its reservation is still held
    if (partnerRow?.status === 'PAID') {
      assert.equal(row.payout_status, 'PRCD', label);
      assert.ok(!ledger['VOIDED'] && !ledger['PENDING'], `a paid payout's reservation is posted, never released: ${label}`);
    }
    if (partnerRow?.status === 'RETURNED') assert.equal(row.payout_status, 'RVSD', label);
    if (row.payout_status === 'PRCD') assert.equal(partnerRow?.status, 'PAID', label);
    if (['RJCT', 'FAIL', 'CNCL'].includes(row.payout_status)) {
      assert.ok(partnerRow === undefined || ['REJECTED', 'FAILED', 'CANCELLED'].includes(partnerRow.status), `released only when the partner will not pay: ${label}`);
    }
    if (row.payout_status === 'PRCD') paidByUs += cents(partnerRow!.amount!);
  }
  // paid once: the partner's paid total is exactly what we took from the prefund for PRCD payouts
  const paidByPartner = cents(books.paidByCurrency['MXN'] ?? '0');
  assert.equal(paidByPartner, paidByUs, 'the partner paid exactly the payouts we hold as paid');
  assert.ok(books.payouts.every((p) => p.status !== 'PAID' || p.submissions >= 1));
  assert.deepEqual(await checkLedger(db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
  const counts = ours.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.parked ? 'parked' : r.payout_status]: (acc[r.parked ? 'parked' : r.payout_status] ?? 0) + 1 }), {});
  process.stdout.write(`# proof: ${JSON.stringify(counts)}; partner paid ${books.paidByCurrency['MXN'] ?? '0'} MXN\n`);
  assert.ok((counts['PRCD'] ?? 0) > 0 && (counts['RJCT'] ?? 0) + (counts['FAIL'] ?? 0) > 0, 'the matrix produced both outcomes');
});
