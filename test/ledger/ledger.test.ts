// The prefund ledger against the real PostgreSQL: reservations, posting, voiding, refusals,
// group atomicity, concurrency and its invariants.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.ts';
import { withTransaction } from '../../src/platform/database/transaction.ts';
import { accountKey, feesAccount, fundingAccount, payoutClearingAccount, prefundAccount } from '../../src/ledger/accounts.ts';
import { balances, checkLedger, createTransfers, postPending, voidPending, type TransferInput } from '../../src/ledger/service.ts';

let service: TestService;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
});
after(async () => {
  await service.stop();
});

// Each test uses its own source member, so that tests do not share balances.
let counter = 0;
async function freshSource(): Promise<string> {
  const memberId = `LEDGER_TEST_${++counter}`;
  await service.db.query(`INSERT INTO members (member_id, name, kind, country_code, currencies) VALUES ($1, 'test', 'SOURCE', 'US', '{USD}')`, [memberId]);
  return memberId;
}

const DEST = 'PARTNER_MX';
const CCY = 'MXN';

function topUp(source: string, amount: bigint): TransferInput {
  return { transferId: randomUUID(), debit: fundingAccount(DEST, CCY), credit: prefundAccount(source, DEST, CCY), amount, reason: 'TEST_TOPUP', reference: randomUUID() };
}

function payoutGroup(source: string, amount: bigint, fee: bigint, reference = randomUUID()): TransferInput[] {
  return [
    { transferId: randomUUID(), debit: prefundAccount(source, DEST, CCY), credit: payoutClearingAccount(DEST, CCY), amount, reason: 'PAYOUT', reference },
    { transferId: randomUUID(), debit: prefundAccount(source, DEST, CCY), credit: feesAccount(CCY), amount: fee, reason: 'PAYOUT_FEE', reference },
  ];
}

async function prefundOf(source: string) {
  const spec = prefundAccount(source, DEST, CCY);
  return (await balances(service.db, [spec])).get(accountKey(spec))!;
}

async function assertInvariants() {
  assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
}

describe('ledger', () => {
  test('an unknown account has zero balances', async () => {
    assert.deepEqual(await prefundOf(await freshSource()), { balance: 0n, available: 0n, reserved: 0n });
  });

  test('a top-up posts at once; a reservation lowers available only; posting lowers the balance', async () => {
    const source = await freshSource();
    await createTransfers(service.db, [[topUp(source, 100_000n)]], { twoPhase: false });
    assert.deepEqual(await prefundOf(source), { balance: 100_000n, available: 100_000n, reserved: 0n });
    const reference = randomUUID();
    const [result] = await createTransfers(service.db, [payoutGroup(source, 30_000n, 150n, reference)], { twoPhase: true });
    assert.deepEqual(result, { ok: true });
    assert.deepEqual(await prefundOf(source), { balance: 100_000n, available: 69_850n, reserved: 30_150n });
    assert.equal(await postPending(service.db, reference), 2);
    assert.deepEqual(await prefundOf(source), { balance: 69_850n, available: 69_850n, reserved: 0n });
    await assert.rejects(postPending(service.db, reference), /nothing pending/, 'posting again is a bug: it throws');
    await assertInvariants();
  });

  test('voiding releases a reservation', async () => {
    const source = await freshSource();
    await createTransfers(service.db, [[topUp(source, 10_000n)]], { twoPhase: false });
    const reference = randomUUID();
    await createTransfers(service.db, [payoutGroup(source, 9_000n, 1_000n, reference)], { twoPhase: true });
    assert.equal((await prefundOf(source)).available, 0n);
    assert.equal(await voidPending(service.db, reference), 2);
    assert.deepEqual(await prefundOf(source), { balance: 10_000n, available: 10_000n, reserved: 0n });
    await assertInvariants();
  });

  test('a group that would overdraw is refused whole; later groups are checked against what is left', async () => {
    const source = await freshSource();
    await createTransfers(service.db, [[topUp(source, 10_000n)]], { twoPhase: false });
    const results = await createTransfers(
      service.db,
      [payoutGroup(source, 6_000n, 100n), payoutGroup(source, 3_800n, 50n), payoutGroup(source, 3_000n, 1n), payoutGroup(source, 40n, 10n)],
      { twoPhase: true },
    );
    assert.deepEqual(results.map((r) => r.ok), [true, true, false, true]);
    assert.deepEqual(await prefundOf(source), { balance: 10_000n, available: 0n, reserved: 10_000n });
    const { rows } = await service.db.query(
      `SELECT count(*)::int AS n FROM ledger_transfers t JOIN ledger_accounts a ON a.account_id = t.debit_account_id WHERE a.source_member_id = $1`,
      [source],
    );
    assert.equal(rows[0].n, 6, 'three accepted groups of two, nothing of the refused one');
    await assertInvariants();
  });

  test('50 concurrent reservations that together exceed the prefund: exactly the affordable ones succeed', async () => {
    const source = await freshSource();
    await createTransfers(service.db, [[topUp(source, 1_000_000n)]], { twoPhase: false });
    // each costs 30,000 + 300; 1,000,000 affords 33 of them
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        withTransaction(service.db, (client) => createTransfers(client, [payoutGroup(source, 30_000n, 300n)], { twoPhase: true })),
      ),
    );
    assert.equal(results.filter(([r]) => r!.ok).length, 33);
    const after = await prefundOf(source);
    assert.equal(after.reserved, 33n * 30_300n);
    assert.ok(after.available >= 0n);
    assert.equal(after.available, 1_000_000n - 33n * 30_300n);
    await assertInvariants();
  });

  test('a reservation waiting on the lock is judged, and added, against what the holder committed', async () => {
    const source = await freshSource();
    await createTransfers(service.db, [[topUp(source, 1_000n)]], { twoPhase: false });
    const holder = await service.db.connect();
    try {
      await holder.query('BEGIN');
      assert.ok((await createTransfers(holder, [payoutGroup(source, 590n, 10n)], { twoPhase: true }))[0]!.ok);
      // both start while the holder has the account locked and its reservation uncommitted
      const tooMuch = withTransaction(service.db, (client) => createTransfers(client, [payoutGroup(source, 450n, 10n)], { twoPhase: true }));
      const fits = withTransaction(service.db, (client) => createTransfers(client, [payoutGroup(source, 290n, 10n)], { twoPhase: true }));
      await new Promise((r) => setTimeout(r, 200));
      await holder.query('COMMIT');
      const [refused, accepted] = await Promise.all([tooMuch, fits]);
      // whichever went first, 460 does not fit beside 600 (+300 if that went first), 300 does
      assert.deepEqual([refused[0]!.ok, accepted[0]!.ok], [false, true]);
    } finally {
      holder.release();
    }
    assert.deepEqual(await prefundOf(source), { balance: 1_000n, available: 100n, reserved: 900n });
    await assertInvariants();
  });

  test('the database itself refuses an overdraft, should code ever try one', async () => {
    const source = await freshSource();
    await createTransfers(service.db, [[topUp(source, 500n)]], { twoPhase: false });
    await assert.rejects(
      withTransaction(service.db, async (client) => {
        await client.query(`SELECT set_config('ledger.writing', 'on', true)`);
        await client.query(`UPDATE ledger_accounts SET debits_committed = debits_committed + 501 WHERE kind = 'PREFUND' AND source_member_id = $1`, [source]);
      }),
      /ledger_accounts_no_overdraft/,
    );
  });

  test('transfers are append-only: a posted transfer cannot change or vanish', async () => {
    const source = await freshSource();
    const transfer = topUp(source, 700n);
    await createTransfers(service.db, [[transfer]], { twoPhase: false });
    await assert.rejects(service.db.query(`UPDATE ledger_transfers SET amount = 1 WHERE transfer_id = $1`, [transfer.transferId]), /append-only|PENDING/);
    await assert.rejects(service.db.query(`UPDATE ledger_transfers SET state = 'VOIDED' WHERE transfer_id = $1`, [transfer.transferId]), /PENDING/);
    await assert.rejects(service.db.query(`DELETE FROM ledger_transfers WHERE transfer_id = $1`, [transfer.transferId]), /append-only/);
  });

  test('accounts, members and providers are never deleted (the ledger and payouts point at them)', async () => {
    const source = await freshSource();
    await createTransfers(service.db, [[topUp(source, 5n)]], { twoPhase: false });
    await assert.rejects(service.db.query('DELETE FROM ledger_accounts WHERE source_member_id = $1', [source]), /ledger_accounts rows are never deleted/);
    await assert.rejects(service.db.query('DELETE FROM members WHERE member_id = $1', [source]), /members rows are never deleted/);
    await assert.rejects(service.db.query(`DELETE FROM payout_providers WHERE payout_provider_id = 'MX_SPEI'`), /payout_providers rows are never deleted/);
    await assert.rejects(service.db.query('TRUNCATE ledger_accounts CASCADE'), /never deleted/);
  });

  test('the check reports a transfer whose account does not exist', async () => {
    const source = await freshSource();
    const transfer = topUp(source, 9n);
    await assert.rejects(withTransaction(service.db, async (client) => {
      await createTransfers(client, [[transfer]], { twoPhase: false });
      await client.query(`INSERT INTO ledger_transfers (transfer_id, debit_account_id, credit_account_id, amount, currency, state, two_phase, reason, reference)
        SELECT $1, debit_account_id, -1, amount, currency, state, two_phase, reason, reference FROM ledger_transfers WHERE transfer_id = $2`, [randomUUID(), transfer.transferId]);
      const check = await checkLedger(client);
      assert.equal(check.danglingTransfers.length, 1);
      throw new Error('rolled back');
    }), /rolled back/);
    await assertInvariants();
  });

  test('bad input is a bug, refused before anything is written', async () => {
    const source = await freshSource();
    await assert.rejects(createTransfers(service.db, [[{ ...topUp(source, 0n) }]], { twoPhase: false }), /positive/);
    const mixed = { ...topUp(source, 5n), credit: prefundAccount(source, DEST, 'USD') };
    await assert.rejects(createTransfers(service.db, [[mixed]], { twoPhase: false }), /one currency/);
  });
});
