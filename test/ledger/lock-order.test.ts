// The ledger's lock order (LOCK ORDER in src/ledger/service.ts): within a transaction, accounts
// are locked in ascending account_id, all of a batch up front in one statement; a path that would
// lock a lower account after a higher one is refused before it can deadlock.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO, DEMO_2, token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { withTransaction } from '../../src/platform/database/transaction.ts';
import { accountKey, fundingAccount, payoutClearingAccount, prefundAccount, type AccountSpec } from '../../src/ledger/accounts.ts';
import { checkLedger, createTransfers, heldAccounts, lockAccountsOf } from '../../src/ledger/service.ts';
import { findAccountIds } from '../../src/ledger/repo.ts';
import { claimSubmissions, lockPayouts, type PayoutRow } from '../../src/payouts/repo.ts';
import { applyToLocked } from '../../src/payouts/apply.ts';
import { applyAnswers } from '../../src/payouts/submission.ts';
import { REJECTING_LAST_NAME } from '../../src/payouts/rails/sandbox.ts';
import { payoutJobs, recordingAlarm } from '../support/payout-jobs.ts';

let service: TestService;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
});
after(async () => {
  await service.stop();
});

const DEST = 'PARTNER_MX';
const CCY = 'MXN';
const prefund1 = prefundAccount(DEMO.memberId, DEST, CCY);
const prefund2 = prefundAccount(DEMO_2.memberId, DEST, CCY);

async function idOf(spec: AccountSpec): Promise<bigint> {
  const id = (await findAccountIds(service.db, [spec])).get(accountKey(spec));
  assert.ok(id, `account ${accountKey(spec)} exists`);
  return BigInt(id);
}

const credit = (prefund: AccountSpec) => [[{
  transferId: randomUUID(), debit: fundingAccount(DEST, CCY), credit: prefund, amount: 100n, reason: 'TEST_TOPUP', reference: `lock-order:${randomUUID()}`,
}]];

/** A REJECT payout of the member, claimed for submission (SUBMITTING), as the process route leaves it. */
async function claimedRejection(clientId: string, secret: string, memberId: string): Promise<PayoutRow> {
  const api = payoutApi(service.url, await token(service.url, { clientId, secret, scope: 'payouts' }));
  const body = payoutBody('MX_SPEI', { payoutAmt: 500 });
  (body['beneficiary'] as Record<string, unknown>)['lastName'] = REJECTING_LAST_NAME;
  const payoutId = String((await api.created(body))['payoutId']);
  const [row] = await claimSubmissions(service.db, [{ payoutId, memberId }], new Date());
  assert.ok(row);
  return row;
}

describe('ledger lock order', () => {
  test('a lower account locked after a higher one in the same transaction is refused, and nothing is written', async () => {
    const [low, high] = (await idOf(prefund1)) < (await idOf(prefund2)) ? [prefund1, prefund2] : [prefund2, prefund1];
    const before = await service.db.query('SELECT count(*)::int AS n FROM ledger_transfers');
    await assert.rejects(
      withTransaction(service.db, async (client) => {
        await createTransfers(client, credit(high), { twoPhase: false });
        await createTransfers(client, credit(low), { twoPhase: false });
      }),
      /ledger lock order/,
    );
    const afterwards = await service.db.query('SELECT count(*)::int AS n FROM ledger_transfers');
    assert.equal(afterwards.rows[0].n, before.rows[0].n);
  });

  test('the same two movements with their accounts locked up front, in one statement, are allowed', async () => {
    const [low, high] = (await idOf(prefund1)) < (await idOf(prefund2)) ? [prefund1, prefund2] : [prefund2, prefund1];
    const held = await withTransaction(service.db, async (client) => {
      await lockAccountsOf(client, [high, low, fundingAccount(DEST, CCY)]);
      await createTransfers(client, credit(high), { twoPhase: false });
      await createTransfers(client, credit(low), { twoPhase: false });
      return heldAccounts(client);
    });
    assert.deepEqual(new Set(held), new Set([await idOf(high), await idOf(low), await idOf(fundingAccount(DEST, CCY))].map(String)));
  });

  test('an answers batch rejecting payouts of two source members locks every account up front; voiding them one by one would break the order', async () => {
    const rejected = [
      await claimedRejection(DEMO.clientId, DEMO.secret, DEMO.memberId),
      await claimedRejection(DEMO_2.clientId, DEMO_2.secret, DEMO_2.memberId),
    ];
    // the shared clearing and fee accounts came after both prefunds: voiding the first payout
    // holds them, and the second payout's prefund lies below them
    const clearing = await idOf(payoutClearingAccount(DEST, CCY));
    assert.ok(clearing > (await idOf(prefund1)) && clearing > (await idOf(prefund2)));
    await assert.rejects(
      withTransaction(service.db, async (client) => {
        const locked = await lockPayouts(client, rejected.map((r) => r.payoutId));
        for (const row of locked.values()) await applyToLocked(client, row, 'PARTNER_REJECTED', {}, new Date());
      }),
      /ledger lock order/,
    );
    const rows = await withTransaction(service.db, (client) =>
      applyAnswers(client, rejected.map((row) => ({ row, outcome: { outcome: 'REJECTED' as const, reason: 'closed' } })), new Date(), recordingAlarm));
    assert.deepEqual(rows.map((r) => r.payoutStatus), ['RJCT', 'RJCT']);
    const { rows: states } = await service.db.query(
      `SELECT DISTINCT state FROM ledger_transfers WHERE reference = ANY($1::text[])`, [rejected.map((r) => r.payoutId)]);
    assert.deepEqual(states, [{ state: 'VOIDED' }]);
    assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
  });

  test('the expiry sweep voids payouts of two source members in one transaction, their accounts locked up front', async () => {
    const created = [];
    for (const member of [DEMO, DEMO_2]) {
      const api = payoutApi(service.url, await token(service.url, { clientId: member.clientId, secret: member.secret, scope: 'payouts' }));
      created.push(String((await api.created(payoutBody('MX_SPEI', { payoutAmt: 300 })))['payoutId']));
    }
    await payoutJobs(service.db, { nowMs: () => Date.now() + 48 * 3_600_000 }).expireDue();
    const { rows } = await service.db.query(
      `SELECT p.payout_status AS status, array_agg(DISTINCT t.state) AS states FROM payouts p JOIN ledger_transfers t ON t.reference = p.payout_id::text
        WHERE p.payout_id = ANY($1::uuid[]) GROUP BY p.payout_id, p.payout_status`, [created]);
    assert.deepEqual(rows, [{ status: 'EXPD', states: ['VOIDED'] }, { status: 'EXPD', states: ['VOIDED'] }]);
    assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
  });
});
