// The two common writes of a payout made in one statement each, with no transaction round trips:
// creations with their reservations (insertReservedPayouts), and partner answers for payouts as
// they were claimed (writeAnsweredSubmissions). Each writes all of its work or none of it, and
// leaves to the transactional path whatever it cannot do exactly as that path would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.ts';
import { token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { recordingAlarm } from '../support/payout-jobs.ts';
import * as repo from '../../src/payouts/repo.ts';
import { statusEvent } from '../../src/payouts/apply.ts';
import { createAnswerApplier } from '../../src/payouts/submission.ts';
import { legTransferId } from '../../src/ledger/transfer-ids.ts';
import { accountKey, feesAccount, payoutClearingAccount, prefundAccount } from '../../src/ledger/accounts.ts';
import { checkLedger, isOverdraftRefusal, prepareReservations, type TransferGroup } from '../../src/ledger/service.ts';
import { parseAmount } from '../../src/platform/money.ts';
import { systemClock } from '../../src/platform/clock.ts';

let service: TestService;
let api: ReturnType<typeof payoutApi>;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
});
after(async () => {
  await service.stop();
});

async function transferStates(id: string): Promise<Record<string, number>> {
  const { rows } = await service.db.query(`SELECT state, count(*)::int AS n FROM ledger_transfers WHERE reference = $1 GROUP BY state`, [id]);
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

async function eventSequences(id: string): Promise<number[]> {
  const { rows } = await service.db.query(`SELECT sequence FROM events WHERE resource_id = $1 ORDER BY sequence`, [id]);
  return rows.map((r) => Number(r.sequence));
}

async function created(): Promise<repo.PayoutRow> {
  const id = String((await api.created(payoutBody()))['payoutId']);
  return (await repo.readPayout(service.db, id))!;
}

async function claimed(row: repo.PayoutRow): Promise<repo.PayoutRow> {
  const [claim] = await repo.claimSubmissions(service.db, [{ payoutId: row.payoutId, memberId: row.sourceMemberId }], new Date());
  assert.ok(claim, 'claimed');
  return claim;
}

/** What a CONFIRMED answer makes of a payout in its first submission. */
function paid(row: repo.PayoutRow): repo.AnsweredSubmission {
  const next: repo.PayoutRow = { ...row, payoutStatus: 'PRCD', submissionState: 'SUBMITTED', completionTime: new Date(), eventSequence: row.eventSequence + 1 };
  return { expected: row, next, event: statusEvent(next, 'ACCP'), posts: true };
}

const prefundDebits = async (row: repo.PayoutRow) => {
  const { rows } = await service.db.query(
    `SELECT debits_committed::text AS d FROM ledger_accounts WHERE kind = 'PREFUND' AND source_member_id = $1 AND destination_member_id = $2 AND currency = $3`,
    [row.sourceMemberId, row.destinationMemberId, row.destinationCcy],
  );
  return BigInt(rows[0]!.d);
};

describe('answers written in one statement (writeAnsweredSubmissions)', () => {
  test('a payout as claimed, paid: PRCD and SUBMITTED, its reservation posted, its event, the ledger clean', async () => {
    const row = await claimed(await created());
    const written = await repo.writeAnsweredSubmissions(service.db, [paid(row)]);
    assert.deepEqual([...written], [row.payoutId]);
    const now = (await repo.readPayout(service.db, row.payoutId))!;
    assert.deepEqual([now.payoutStatus, now.submissionState, now.eventSequence], ['PRCD', 'SUBMITTED', 2]);
    assert.ok(now.completionTime);
    assert.deepEqual(await transferStates(row.payoutId), { POSTED: 2 });
    assert.deepEqual(await eventSequences(row.payoutId), [1, 2]);
    const check = await checkLedger(service.db);
    assert.deepEqual([check.totalsMismatches, check.danglingTransfers], [[], []]);
  });

  test('a payout that changed after its claim (a cancellation requested) is left alone; the answer is then applied under lock', async () => {
    const row = await claimed(await created());
    assert.equal((await api.cancel(row.payoutId)).status, 202);
    const events = await eventSequences(row.payoutId);
    assert.deepEqual([...(await repo.writeAnsweredSubmissions(service.db, [paid(row)]))], [], 'nothing written');
    const untouched = (await repo.readPayout(service.db, row.payoutId))!;
    assert.deepEqual([untouched.payoutStatus, untouched.submissionState, untouched.cancellationStatus], ['ACCP', 'SUBMITTING', 'PNDG']);
    assert.deepEqual(await transferStates(row.payoutId), { PENDING: 2 });
    assert.deepEqual(await eventSequences(row.payoutId), events, 'no event');

    const apply = createAnswerApplier({ db: service.db, clock: systemClock, alarm: recordingAlarm });
    const applied = await apply({ row, outcome: { outcome: 'CONFIRMED' } });
    assert.deepEqual([applied.payoutStatus, applied.cancellationStatus], ['PRCD', 'PNDG'], 'paid; the cancellation is left to its job');
    assert.deepEqual(await eventSequences(row.payoutId), [...events, events.length + 1]);
    assert.deepEqual(await transferStates(row.payoutId), { POSTED: 2 });
  });

  test('a pending answer moves the payout to PNDG and posts nothing', async () => {
    const row = await claimed(await created());
    const next: repo.PayoutRow = { ...row, payoutStatus: 'PNDG', submissionState: 'SUBMITTED', eventSequence: 2 };
    const written = await repo.writeAnsweredSubmissions(service.db, [{ expected: row, next, event: statusEvent(next, 'ACCP'), posts: false }]);
    assert.deepEqual([...written], [row.payoutId]);
    assert.equal((await repo.readPayout(service.db, row.payoutId))!.payoutStatus, 'PNDG');
    assert.deepEqual(await transferStates(row.payoutId), { PENDING: 2 });
  });

  test('of several, only those unchanged are written', async () => {
    const [a, b] = [await claimed(await created()), await claimed(await created())];
    await service.db.query(`UPDATE payouts SET cashout_status = 'CHANGED' WHERE payout_id = $1`, [b.payoutId]);
    const written = await repo.writeAnsweredSubmissions(service.db, [paid(a), paid(b)]);
    assert.deepEqual([...written], [a.payoutId]);
    assert.equal((await repo.readPayout(service.db, b.payoutId))!.payoutStatus, 'ACCP');
  });
});

describe('creations with their reservations in one statement (insertReservedPayouts)', () => {
  async function fresh(count: number): Promise<{ items: Array<{ payout: repo.NewPayout; firstEvent: ReturnType<typeof statusEvent> }>; groups: TransferGroup[] }> {
    const model = await created();
    const items = [];
    const groups: TransferGroup[] = [];
    for (let i = 0; i < count; i++) {
      const payout = { ...model, payoutId: randomUUID(), sourceMemberPayoutId: `one-statement-${randomUUID()}`, eventSequence: 1, payoutStatus: 'ACCP' as const };
      items.push({ payout, firstEvent: statusEvent({ ...payout, cancellationStatus: null, cashoutStatus: null, rejectReason: null } as repo.PayoutRow, null) });
      const minor = (text: string) => { const parsed = parseAmount(text, payout.destinationCcy); assert.ok(parsed.ok); return parsed.minor; };
      const prefund = prefundAccount(payout.sourceMemberId, payout.destinationMemberId, payout.destinationCcy);
      groups.push([
        { transferId: legTransferId(payout.payoutId, 'PAYOUT'), debit: prefund, credit: payoutClearingAccount(payout.destinationMemberId, payout.destinationCcy), amount: minor(payout.payoutAmt), reason: 'PAYOUT', reference: payout.payoutId },
        { transferId: legTransferId(payout.payoutId, 'PAYOUT_FEE'), debit: prefund, credit: feesAccount(payout.destinationCcy), amount: minor(payout.transferFee), reason: 'PAYOUT_FEE', reference: payout.payoutId },
      ]);
    }
    return { items, groups };
  }

  async function knownAccounts(): Promise<Map<string, string>> {
    const { rows } = await service.db.query(
      `SELECT account_id::text AS id, kind, source_member_id AS "sourceMemberId", destination_member_id AS "destinationMemberId", currency FROM ledger_accounts`,
    );
    return new Map(rows.map((r) => [accountKey(r), String(r.id)]));
  }

  test('payouts, their first events, expiry entries and reservations, the prefund debited by their sum, the ledger clean', async () => {
    const { items, groups } = await fresh(3);
    const before = await prefundDebits(items[0]!.payout as repo.PayoutRow);
    const reservations = prepareReservations(groups, await knownAccounts());
    assert.ok(reservations);
    const inserted = await repo.insertReservedPayouts(service.db, items, reservations);
    assert.deepEqual([...inserted].sort(), items.map((i) => i.payout.payoutId).sort());
    const sum = groups.flat().reduce((total, t) => total + t.amount, 0n);
    assert.equal(await prefundDebits(items[0]!.payout as repo.PayoutRow), before + sum);
    for (const { payout } of items) {
      assert.deepEqual(await transferStates(payout.payoutId), { PENDING: 2 });
      assert.deepEqual(await eventSequences(payout.payoutId), [1]);
      const { rows } = await service.db.query('SELECT 1 FROM payout_expiry_queue WHERE payout_id = $1', [payout.payoutId]);
      assert.equal(rows.length, 1);
    }
    const check = await checkLedger(service.db);
    assert.deepEqual([check.totalsMismatches, check.danglingTransfers], [[], []]);

    // the same payouts again: none inserted, nothing reserved twice
    const again = await repo.insertReservedPayouts(service.db, items.map((i) => ({ ...i, payout: { ...i.payout, payoutId: randomUUID() } })), reservations);
    assert.deepEqual([...again], []);
    assert.equal(await prefundDebits(items[0]!.payout as repo.PayoutRow), before + sum);
  });

  test('a batch the prefund cannot pay for in whole fails as an overdraft refusal, and nothing of it stays', async () => {
    const { items, groups } = await fresh(2);
    const huge = groups.map((g) => g.map((t) => (t.reason === 'PAYOUT' ? { ...t, amount: 10n ** 20n } : t)));
    const before = await prefundDebits(items[0]!.payout as repo.PayoutRow);
    await assert.rejects(repo.insertReservedPayouts(service.db, items, prepareReservations(huge, await knownAccounts())!), (error) => isOverdraftRefusal(error));
    for (const { payout } of items) {
      assert.equal(await repo.readPayout(service.db, payout.payoutId), undefined);
      assert.deepEqual(await transferStates(payout.payoutId), {});
      assert.deepEqual(await eventSequences(payout.payoutId), []);
    }
    assert.equal(await prefundDebits(items[0]!.payout as repo.PayoutRow), before);
  });

  test('an account whose id is not known: no one-statement write (the transaction creates and learns it)', async () => {
    const { groups } = await fresh(1);
    assert.equal(prepareReservations(groups, new Map()), undefined);
  });
});
