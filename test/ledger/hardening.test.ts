// The ledger's guards in the database and in its statements: one transfer per (reference, leg),
// no TRUNCATE of transfers, no account total changed outside the ledger's own statements, and a
// post or void that finds another number of rows than it must throws and rolls back.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.ts';
import { token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { withTransaction } from '../../src/platform/database/transaction.ts';
import { feesAccount, fundingAccount, payoutClearingAccount, prefundAccount } from '../../src/ledger/accounts.ts';
import { balances, checkLedger, createTransfers, postPending, voidPending, type TransferInput } from '../../src/ledger/service.ts';
import { resolveTransfers, LedgerRowCountError } from '../../src/ledger/repo.ts';
import { legTransferId } from '../../src/ledger/transfer-ids.ts';

let service: TestService;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
});
after(async () => {
  await service.stop();
});

let counter = 0;
async function freshSource(): Promise<string> {
  const memberId = `HARDENING_TEST_${++counter}`;
  await service.db.query(`INSERT INTO members (member_id, name, kind, country_code, currencies) VALUES ($1, 'test', 'SOURCE', 'US', '{USD}')`, [memberId]);
  return memberId;
}
const DEST = 'PARTNER_MX';
const CCY = 'MXN';
const topUp = (source: string, amount: bigint): TransferInput => ({
  transferId: randomUUID(), debit: fundingAccount(DEST, CCY), credit: prefundAccount(source, DEST, CCY), amount, reason: 'TEST_TOPUP', reference: randomUUID(),
});
const leg = (source: string, reason: string, reference: string, amount = 10n): TransferInput => ({
  transferId: legTransferId(reference, reason), debit: prefundAccount(source, DEST, CCY), credit: reason === 'PAYOUT_FEE' ? feesAccount(CCY) : payoutClearingAccount(DEST, CCY), amount, reason, reference,
});

async function assertLedgerClean(): Promise<void> {
  assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
}

test('a second transfer for the same (reference, leg) is refused (its id is the same): a retried step cannot move money twice', async () => {
  const source = await freshSource();
  await createTransfers(service.db, [[topUp(source, 1_000n)]], { twoPhase: false });
  const reference = randomUUID();
  await createTransfers(service.db, [[leg(source, 'PAYOUT', reference), leg(source, 'PAYOUT_FEE', reference, 1n)]], { twoPhase: true });
  const before = (await balances(service.db, [prefundAccount(source, DEST, CCY)])).values().next().value;
  await assert.rejects(createTransfers(service.db, [[leg(source, 'PAYOUT', reference)]], { twoPhase: true }), /ledger_transfers_pkey/);
  assert.deepEqual((await balances(service.db, [prefundAccount(source, DEST, CCY)])).values().next().value, before, 'nothing moved');
  // movements that are not legs may repeat under one reference (sandbox top-ups of a member)
  const again = { ...topUp(source, 5n), reference: 'sandbox-like' };
  await createTransfers(service.db, [[again], [{ ...again, transferId: randomUUID() }]], { twoPhase: false });
  await assertLedgerClean();
});

test('TRUNCATE of the transfers (or the accounts) is refused', async () => {
  await assert.rejects(service.db.query('TRUNCATE ledger_transfers CASCADE'), /append-only: TRUNCATE of ledger_transfers is refused/);
  await assert.rejects(service.db.query('TRUNCATE ledger_transfers, ledger_accounts CASCADE'), /refused|never deleted/);
  assert.ok((await service.db.query('SELECT 1 FROM ledger_transfers LIMIT 1')).rowCount === 1);
});

test('an account total changed outside the ledger\'s statements is refused, and so is an account born with totals', async () => {
  const source = await freshSource();
  await createTransfers(service.db, [[topUp(source, 100n)]], { twoPhase: false });
  await assert.rejects(
    service.db.query(`UPDATE ledger_accounts SET credits_committed = credits_committed + 1 WHERE kind = 'PREFUND' AND source_member_id = $1`, [source]),
    /ledger account totals change only with their transfers/,
  );
  await assert.rejects(
    service.db.query(`INSERT INTO ledger_accounts (kind, source_member_id, destination_member_id, currency, no_overdraft, credits_committed) VALUES ('PREFUND', $1, 'PARTNER_PH', 'PHP', true, 5)`, [source]),
    /ledger account totals change only with their transfers/,
  );
  // other columns may still change (none do today, but the guard is about totals only)
  await service.db.query(`UPDATE ledger_accounts SET no_overdraft = no_overdraft WHERE kind = 'PREFUND' AND source_member_id = $1`, [source]);
  // the ledger's flag is transaction-local: it does not outlive the ledger's own transaction
  await withTransaction(service.db, (client) => createTransfers(client, [[topUp(source, 1n)]], { twoPhase: false }));
  await assert.rejects(service.db.query(`UPDATE ledger_accounts SET credits_committed = credits_committed + 1 WHERE kind = 'PREFUND' AND source_member_id = $1`, [source]), /only with their transfers/);
  await assertLedgerClean();
});

test('a post of a reference with nothing pending, or a void of a transfer no longer pending, throws and rolls its transaction back', async () => {
  const source = await freshSource();
  await createTransfers(service.db, [[topUp(source, 1_000n)]], { twoPhase: false });
  const reference = randomUUID();
  const reservation = leg(source, 'PAYOUT', reference);
  await createTransfers(service.db, [[reservation]], { twoPhase: true });
  await assert.rejects(withTransaction(service.db, (client) => postPending(client, reference, randomUUID())), LedgerRowCountError);
  assert.equal((await service.db.query(`SELECT state FROM ledger_transfers WHERE reference = $1`, [reference])).rows[0].state, 'PENDING', 'the post rolled back whole');
  await postPending(service.db, reference);
  await assert.rejects(withTransaction(service.db, (client) => resolveTransfers(client, [reservation.transferId], 'VOIDED')), /ledger void of pending transfers: 0 rows where 1 were expected/);
  await assertLedgerClean();
});

test('a balance is read in one statement (one snapshot): reservations made and voided meanwhile never show a balance that never was', async () => {
  const source = await freshSource();
  const prefund = prefundAccount(source, DEST, CCY);
  await createTransfers(service.db, [[topUp(source, 1_000n)]], { twoPhase: false });
  let statements = 0;
  const counting = { query: ((...args: Parameters<typeof service.db.query>) => { statements += 1; return service.db.query(...args); }) as typeof service.db.query };
  await balances(counting, [prefund]);
  assert.equal(statements, 1, 'totals and pending sums come from one statement');
  // reservations come and go (the posted balance stays 1000) while it is read, for a bounded number of rounds
  const ROUNDS = 150;
  let writing = true;
  const writer = (async () => {
    for (let i = 0; i < ROUNDS && writing; i++) {
      const reference = randomUUID();
      await createTransfers(service.db, [[leg(source, 'PAYOUT', reference, 7n)]], { twoPhase: true });
      await withTransaction(service.db, (client) => voidPending(client, reference));
    }
  })();
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const b = (await balances(service.db, [prefund])).values().next().value!;
      assert.equal(b.balance, 1_000n, `read ${i}: ${b.balance}`);
      assert.equal(b.available + b.reserved, 1_000n);
    }
  } finally {
    writing = false;
    await writer;
  }
  await assertLedgerClean();
});

test('transfer ids are derived from (reference, leg): the same step made again makes the same id; payouts and settlements use them', async () => {
  const reference = randomUUID();
  assert.equal(legTransferId(reference, 'PAYOUT'), legTransferId(reference, 'PAYOUT'));
  assert.notEqual(legTransferId(reference, 'PAYOUT'), legTransferId(reference, 'PAYOUT_FEE'));
  assert.notEqual(legTransferId(reference, 'PAYOUT'), legTransferId(randomUUID(), 'PAYOUT'));
  assert.match(legTransferId(reference, 'PAYOUT'), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const payouts = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
  const payoutId = String((await payouts.created(payoutBody()))['payoutId']);
  const { rows } = await service.db.query<{ transferId: string; reason: string }>(
    `SELECT transfer_id::text AS "transferId", reason FROM ledger_transfers WHERE reference = $1 ORDER BY reason`, [payoutId]);
  assert.deepEqual(rows.map((r) => r.reason), ['PAYOUT', 'PAYOUT_FEE']);
  for (const r of rows) assert.equal(r.transferId, legTransferId(payoutId, r.reason));
});
