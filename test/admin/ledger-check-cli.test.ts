// npm run admin -- ledger check: exit 0 on a clean ledger with payouts and settlements in several
// states, and exit 1 naming the difference on a ledger corrupted on purpose in each way it checks.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.ts';
import { adminCli } from '../support/admin.ts';
import { bearer, json, token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { settlementApi } from '../support/settlements.ts';
import type { LedgerReport } from '../../src/ledger/check.ts';

let service: TestService;
const { admin } = adminCli(() => service.dataDir);
let accepted: string;
let completedSettlement: string;

async function waitFor(what: string, read: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 15_000;
  while (!(await read())) {
    assert.ok(Date.now() < until, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

before(async () => {
  service = await startTestService({ WORKERS: '1' });
  const payouts = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
  const processed = String((await payouts.created(payoutBody()))['payoutId']);
  await payouts.process(processed);
  const rejected = String((await payouts.created(payoutBody('MX_SPEI', { beneficiary: { firstName: 'Maria', lastName: 'REJECT', accountNumber: '032180000118359719' } })))['payoutId']);
  await payouts.process(rejected);
  accepted = String((await payouts.created(payoutBody()))['payoutId']);
  const settlementsAuth = await token(service.url, { scope: 'settlements' });
  completedSettlement = String((await settlementApi(service.url, settlementsAuth).settle('PARTNER_MX', { settlementAmt: 100 }))['settlementId']);
  await waitFor('the settlement to complete', async () =>
    (await json(await fetch(`${service.url}/v2/settlements/${completedSettlement}`, { headers: bearer(settlementsAuth) })))['settlementStatus'] === 'S600_COMPLETED');
  await waitFor('the processed payout', async () => (await payouts.record(processed))['payoutStatus'] !== 'ACCP');
});
after(async () => {
  await service.stop();
});

async function check(): Promise<{ code: number; report: LedgerReport; text: string }> {
  const [withJson, plain] = [await admin(['ledger', 'check', '--json']), await admin(['ledger', 'check'])];
  assert.equal(withJson.code, plain.code, plain.stderr);
  return { code: withJson.code, report: JSON.parse(withJson.stdout) as LedgerReport, text: plain.stdout };
}

/** Runs `corrupt`, checks, then `repair`s, so that each test starts from a clean ledger. */
async function corrupted(corrupt: string, repair: string, values: unknown[]): Promise<{ code: number; report: LedgerReport; text: string }> {
  await service.db.query(corrupt, values);
  try {
    return await check();
  } finally {
    await service.db.query(repair, values);
  }
}

test('a clean ledger (payouts accepted, processed, rejected; a completed settlement; the sandbox seed): exit 0, no difference', async () => {
  const { code, report, text } = await check();
  assert.equal(code, 0, text);
  assert.ok(report.checked.accounts > 0 && report.checked.payouts >= 3 && report.checked.settlements >= 1 && report.checked.transfers > 0);
  for (const kind of ['accountTotals', 'unbalancedCurrencies', 'payouts', 'settlements', 'danglingTransfers'] as const) assert.deepEqual(report[kind], { count: 0, items: [] }, kind);
  assert.match(text, /no difference/);
});

test('an account total changed behind the ledger: exit 1, the account and its currency named', async () => {
  const { rows: [fees] } = await service.db.query<{ id: string }>(`SELECT account_id::text AS id FROM ledger_accounts WHERE kind = 'FEES' AND currency = 'MXN'`);
  const { code, report } = await corrupted(
    `SELECT set_config('ledger.writing', 'on', false); UPDATE ledger_accounts SET debits_committed = debits_committed + 1 WHERE account_id = ${Number(fees!.id)}`,
    `UPDATE ledger_accounts SET debits_committed = debits_committed - 1 WHERE account_id = ${Number(fees!.id)}; SELECT set_config('ledger.writing', '', false)`, []);
  assert.equal(code, 1);
  assert.deepEqual(report.accountTotals.items.map((d) => d.id), [fees!.id]);
  assert.deepEqual(report.unbalancedCurrencies.items.map((d) => d.id), ['MXN']);
});

test('a payout whose status disagrees with its transfers (PRCD with its reservation still PENDING): exit 1, the payout named', async () => {
  const { code, report, text } = await corrupted(`UPDATE payouts SET payout_status = 'PRCD' WHERE payout_id = $1`, `UPDATE payouts SET payout_status = 'ACCP' WHERE payout_id = $1`, [accepted]);
  assert.equal(code, 1, text);
  assert.deepEqual(report.payouts.items.map((d) => d.id), [accepted]);
  assert.match(report.payouts.items[0]!.detail, /status PRCD but reservation PENDING/);
  assert.match(text, /payouts\s+1/);
});

test('a completed settlement without its legs: exit 1, the settlement named', async () => {
  const settlementsAuth = await token(service.url, { scope: 'settlements' });
  const scheduled = String((await settlementApi(service.url, settlementsAuth).settle('PARTNER_MX', { settlementAmt: 100, executionInterval: 'SIX_HOURS' }))['settlementId']);
  const { code, report } = await corrupted(
    `UPDATE settlements SET settlement_status = 'S600_COMPLETED', completion_time = now(), settlement_amt_received = 1 WHERE settlement_id = $1`,
    `UPDATE settlements SET settlement_status = 'S100_SCHEDULED', completion_time = NULL, settlement_amt_received = NULL WHERE settlement_id = $1`, [scheduled]);
  assert.equal(code, 1);
  assert.deepEqual(report.settlements.items.map((d) => d.id), [scheduled]);
  assert.match(report.settlements.items[0]!.detail, /S600_COMPLETED but 0 SETTLEMENT_IN, 0 SETTLEMENT_BUY/);
});

test('a transfer referring to no payout: exit 1, the transfer named (runs last: transfers are never deleted)', async () => {
  const transferId = randomUUID();
  await service.db.query(
    `INSERT INTO ledger_transfers (transfer_id, debit_account_id, credit_account_id, amount, currency, state, two_phase, reason, reference, resolved_at, resolved_seq)
     SELECT $1, p.account_id, c.account_id, 1, 'MXN', 'VOIDED', true, 'PAYOUT', $2, now(), nextval('ledger_movement_seq')
       FROM ledger_accounts p, ledger_accounts c WHERE p.kind = 'FUNDING' AND p.currency = 'MXN' AND c.kind = 'FEES' AND c.currency = 'MXN' LIMIT 1`,
    [transferId, randomUUID()]);
  const { code, report } = await check();
  assert.equal(code, 1);
  assert.deepEqual(report.danglingTransfers.items.map((d) => d.id), [transferId]);
  assert.match(report.danglingTransfers.items[0]!.detail, /no payout has this reference/);
});
