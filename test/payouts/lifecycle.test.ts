// The payout state machine: every (state, trigger) pair, the refused ones included, with the
// ledger effect of each move and the events it writes.
import { after, before, describe, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { json, token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { addedJobs, payoutJobs } from '../support/payout-jobs.ts';
import { balances, checkLedger } from '../../src/ledger/service.ts';
import { accountKey, prefundAccount } from '../../src/ledger/accounts.ts';
import { PAYOUT_TRANSITIONS } from '../../src/payouts/lifecycle.ts';

let service: TestService;
let api: ReturnType<typeof payoutApi>;
let jobs: ReturnType<typeof payoutJobs>;
const DAY_MS = 86_400_000;

before(async () => {
  service = await startTestService({ WORKERS: '0' });
  api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
  jobs = payoutJobs(service.db, { nowMs: () => Date.now() + DAY_MS + 60_000 }); // a day on: due payouts expire
});
after(async () => {
  await service.stop();
});

type State = 'ACCP' | 'PNDG' | 'PRCD' | 'RJCT' | 'FAIL' | 'EXPD' | 'CNCL' | 'RVSD';

async function payoutIn(state: State): Promise<string> {
  const provider = state === 'PNDG' ? 'MX_CASH' : 'MX_SPEI';
  const id = String((await api.created(payoutBody(provider, { payoutAmt: 200 })))['payoutId']);
  const simulate = async (payoutStatus: string) => assert.equal((await api.simulate(id, { payoutStatus })).status, 200);
  if (state === 'PNDG' || state === 'PRCD' || state === 'RVSD') assert.equal((await api.process(id)).status, 200);
  if (state === 'RJCT' || state === 'FAIL' || state === 'EXPD' || state === 'RVSD') await simulate(state);
  if (state === 'CNCL') {
    assert.equal((await api.cancel(id)).status, 202);
    await jobs.cancel(id);
  }
  assert.equal((await api.record(id))['payoutStatus'], state);
  return id;
}

type Trigger = 'process' | 'cancel' | 'report PRCD' | 'report RJCT' | 'report FAIL' | 'report RVSD' | 'report EXPD' | 'expiry job';
const TRIGGERS: Trigger[] = ['process', 'cancel', 'report PRCD', 'report RJCT', 'report FAIL', 'report RVSD', 'report EXPD', 'expiry job'];

// status code of the answer, then the payout status afterwards
const EXPECTED: Record<State, Record<Trigger, string>> = {
  ACCP: { process: '200 PRCD', cancel: '202 ACCP', 'report PRCD': '409 ACCP', 'report RJCT': '200 RJCT', 'report FAIL': '200 FAIL', 'report RVSD': '409 ACCP', 'report EXPD': '200 EXPD', 'expiry job': '- EXPD' },
  PNDG: { process: '200 PNDG', cancel: '202 PNDG', 'report PRCD': '200 PRCD', 'report RJCT': '200 RJCT', 'report FAIL': '200 FAIL', 'report RVSD': '409 PNDG', 'report EXPD': '409 PNDG', 'expiry job': '- PNDG' },
  PRCD: { process: '200 PRCD', cancel: '409 PRCD', 'report PRCD': '409 PRCD', 'report RJCT': '409 PRCD', 'report FAIL': '409 PRCD', 'report RVSD': '200 RVSD', 'report EXPD': '409 PRCD', 'expiry job': '- PRCD' },
  RJCT: { process: '409 RJCT', cancel: '409 RJCT', 'report PRCD': '409 RJCT', 'report RJCT': '409 RJCT', 'report FAIL': '409 RJCT', 'report RVSD': '409 RJCT', 'report EXPD': '409 RJCT', 'expiry job': '- RJCT' },
  FAIL: { process: '409 FAIL', cancel: '409 FAIL', 'report PRCD': '409 FAIL', 'report RJCT': '409 FAIL', 'report FAIL': '409 FAIL', 'report RVSD': '409 FAIL', 'report EXPD': '409 FAIL', 'expiry job': '- FAIL' },
  EXPD: { process: '409 EXPD', cancel: '409 EXPD', 'report PRCD': '409 EXPD', 'report RJCT': '409 EXPD', 'report FAIL': '409 EXPD', 'report RVSD': '409 EXPD', 'report EXPD': '409 EXPD', 'expiry job': '- EXPD' },
  CNCL: { process: '409 CNCL', cancel: '409 CNCL', 'report PRCD': '409 CNCL', 'report RJCT': '409 CNCL', 'report FAIL': '409 CNCL', 'report RVSD': '409 CNCL', 'report EXPD': '409 CNCL', 'expiry job': '- CNCL' },
  RVSD: { process: '409 RVSD', cancel: '409 RVSD', 'report PRCD': '409 RVSD', 'report RJCT': '409 RVSD', 'report FAIL': '409 RVSD', 'report RVSD': '409 RVSD', 'report EXPD': '409 RVSD', 'expiry job': '- RVSD' },
};

async function fire(trigger: Trigger, id: string): Promise<string> {
  if (trigger === 'expiry job') {
    await jobs.expireDue();
    return '-';
  }
  const response = trigger === 'process' ? await api.process(id) : trigger === 'cancel' ? await api.cancel(id) : await api.simulate(id, { payoutStatus: trigger.slice(7) });
  const body = await json(response);
  if (response.status >= 400) {
    assert.equal(body['code'], 'INVALID_STATE');
    assert.match(String(body['detail']), /payoutStatus: /);
  }
  return String(response.status);
}

describe('every (state, trigger) pair', () => {
  for (const state of Object.keys(EXPECTED) as State[]) {
    for (const trigger of TRIGGERS) {
      test(`${state} + ${trigger} -> ${EXPECTED[state][trigger]}`, async () => {
        const id = await payoutIn(state);
        const status = await fire(trigger, id);
        const after = await api.record(id);
        assert.equal(`${status} ${after['payoutStatus']}`, EXPECTED[state][trigger]);
      });
    }
  }

  test('the table in code has exactly the moves this matrix allows', () => {
    const moves = PAYOUT_TRANSITIONS.map((t) => `${t.from}>${t.to}`).sort();
    // the four moves into PRCD from a released state are an operator's correction after a review (test/payouts/review.test.ts)
    assert.deepEqual(moves, [
      'ACCP>CNCL', 'ACCP>EXPD', 'ACCP>FAIL', 'ACCP>PNDG', 'ACCP>PRCD', 'ACCP>RJCT', 'CNCL>PRCD', 'EXPD>PRCD', 'FAIL>PRCD', 'PNDG>CNCL', 'PNDG>FAIL',
      'PNDG>PRCD', 'PNDG>RJCT', 'PRCD>RVSD', 'RJCT>PRCD',
    ]);
    assert.deepEqual(PAYOUT_TRANSITIONS.filter((t) => t.event === 'FOUND_PAID').map((t) => t.ledger), ['CHARGE', 'CHARGE', 'CHARGE', 'CHARGE']);
  });

  test('after all of it the ledger holds: reservations end with their payouts, everything balances', async () => {
    assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
    const { rows } = await service.db.query(`
      SELECT p.payout_id, p.payout_status, count(t.*) FILTER (WHERE t.state = 'PENDING')::int AS pending
        FROM payouts p LEFT JOIN ledger_transfers t ON t.reference = p.payout_id::text
       GROUP BY p.payout_id, p.payout_status`);
    for (const row of rows) {
      const open = row.payout_status === 'ACCP' || row.payout_status === 'PNDG';
      assert.equal(row.pending > 0, open, `${row.payout_id} ${row.payout_status} has ${row.pending} pending transfers`);
    }
  });
});

describe('ledger effects and times', () => {
  async function mxPrefund() {
    const spec = prefundAccount('DEMO_SOURCE_1', 'PARTNER_MX', 'MXN');
    const { balance, available } = (await balances(service.db, [spec])).get(accountKey(spec))!;
    return { balance, available };
  }

  test('PRCD posts amount plus fee; RVSD credits both back', async () => {
    const id = String((await api.created(payoutBody('MX_SPEI', { payoutAmt: 1000 })))['payoutId']); // fee 20.00
    const reserved = await mxPrefund();
    assert.equal((await json(await api.process(id)))['payoutStatus'], 'PRCD');
    const paid = await mxPrefund();
    assert.equal(reserved.balance - paid.balance, 102_000n);
    assert.equal(paid.available, reserved.available);
    const record = await api.record(id);
    assert.ok(record['completionTime'] && record['initiateTime']);
    await api.simulate(id, { payoutStatus: 'RVSD' });
    const returned = await mxPrefund();
    assert.equal(returned.balance, reserved.balance);
    assert.equal(returned.available, paid.available + 102_000n);
  });

  test('RJCT, FAIL, EXPD and CNCL release the reservation; RJCT and FAIL carry a reason and a time', async () => {
    for (const state of ['RJCT', 'FAIL', 'EXPD', 'CNCL'] as const) {
      const before = await mxPrefund();
      const id = await payoutIn(state);
      assert.deepEqual(await mxPrefund(), before, state);
      const record = await api.record(id);
      if (state === 'RJCT' || state === 'FAIL') {
        assert.equal(typeof record['rejectReason'], 'string');
        assert.equal(typeof record['rejectionTime'], 'string');
      }
      if (state === 'CNCL') assert.equal(typeof record['cancellationTime'], 'string');
      assert.equal(record['completionTime'], undefined);
    }
  });

  test('each change writes an event with the next sequence number and the previous status', async () => {
    const id = await payoutIn('RVSD');
    const { rows } = await service.db.query(`SELECT sequence, type, data FROM events WHERE resource_id = $1 ORDER BY sequence`, [id]);
    assert.deepEqual(rows.map((r) => [r.sequence, r.type, r.data.payoutStatus, r.data.previousStatus]), [
      [1, 'payout.status_changed', 'ACCP', null],
      [2, 'payout.status_changed', 'PRCD', 'ACCP'],
      [3, 'payout.status_changed', 'RVSD', 'PRCD'],
    ]);
    assert.equal(rows[1].data.payoutId, id);
    assert.equal(typeof rows[1].data.sourceMemberPayoutId, 'string');
  });

  test('cash pickup: PNDG READY_FOR_PICKUP, then the partner report of the pickup makes it PRCD PAID', async () => {
    const id = String((await api.created(payoutBody('MX_CASH', { payoutAmt: 500 })))['payoutId']);
    assert.deepEqual(await json(await api.process(id)), { payoutStatus: 'PNDG', cashoutStatus: 'READY_FOR_PICKUP' });
    const paid = await json(await api.simulate(id, { payoutStatus: 'PRCD' }));
    assert.equal(paid['payoutStatus'], 'PRCD');
    assert.equal(paid['cashoutStatus'], 'PAID');
    assert.deepEqual(await json(await api.status(id)), { payoutStatus: 'PRCD', cashoutStatus: 'PAID' });
  });

  test('a partner that rejects at submission answers RJCT with its reason, and process is then 409', async () => {
    const id = String((await api.created(payoutBody('MX_SPEI', { beneficiary: { firstName: 'X', lastName: 'REJECT', accountNumber: '032180000118359719' } })))['payoutId']);
    const answer = await json(await api.process(id));
    assert.equal(answer['payoutStatus'], 'RJCT');
    assert.match(String(answer['rejectReason']), /closed/);
    assert.equal((await api.process(id)).status, 409);
  });

  test('the expiry sweep expires the waiting payouts that are due, voids their reservations and writes their events', async () => {
    const waiting = String((await api.created(payoutBody()))['payoutId']);
    const processed = String((await api.created(payoutBody()))['payoutId']);
    const cancelling = String((await api.created(payoutBody()))['payoutId']);
    assert.equal((await json(await api.process(processed)))['payoutStatus'], 'PRCD');
    assert.equal((await api.cancel(cancelling)).status, 202);
    await jobs.expireDue();
    assert.equal((await api.record(waiting))['payoutStatus'], 'EXPD');
    assert.equal((await api.record(processed))['payoutStatus'], 'PRCD');
    assert.equal((await api.record(cancelling))['payoutStatus'], 'ACCP', 'a pending cancellation is finished by its own job');
    const { rows } = await service.db.query(`SELECT state FROM ledger_transfers WHERE reference = $1`, [waiting]);
    assert.deepEqual(rows.map((r) => r.state), ['VOIDED', 'VOIDED']);
    const events = await service.db.query(`SELECT data FROM events WHERE resource_id = $1 ORDER BY sequence`, [waiting]);
    assert.deepEqual(events.rows.map((r) => [r.data.previousStatus, r.data.payoutStatus]), [[null, 'ACCP'], ['ACCP', 'EXPD']]);
    assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
  });

  test('the sweep passes over a queue entry whose payout does not exist (a creation refused for want of prefund)', async () => {
    const orphan = randomUUID();
    await service.db.query(`INSERT INTO payout_expiry_queue (payout_id, expiry_time) VALUES ($1, now() - interval '1 second')`, [orphan]);
    await jobs.expireDue();
    const { rows } = await service.db.query('SELECT count(*)::int AS n FROM payout_expiry_queue WHERE payout_id = $1', [orphan]);
    assert.equal(rows[0].n, 0);
  });

  test('the sweep takes the due payouts a batch per transaction until none is left', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(String((await api.created(payoutBody()))['payoutId']));
    await payoutJobs(service.db, { nowMs: () => Date.now() + DAY_MS + 60_000, expiryBatchMax: 3 }).expireDue();
    for (const id of ids) assert.equal((await api.record(id))['payoutStatus'], 'EXPD');
  });

  test('before its expiry time a payout is left alone, and the sweep is due again at that time (at most a minute on)', async () => {
    await jobs.expireDue(); // nothing else waits in this file now
    const id = String((await api.created(payoutBody()))['payoutId']);
    const expiry = Date.parse(String((await api.record(id))['expiryTime']));
    addedJobs.length = 0;
    await payoutJobs(service.db, { nowMs: () => expiry - 1 }).expireDue();
    assert.equal((await api.record(id))['payoutStatus'], 'ACCP');
    assert.deepEqual(addedJobs, [{ task: 'payout.expire_due', runAt: new Date(expiry - 1 + 1000), jobKey: 'payout-expiry-sweep' }], 'at least a second on');
    addedJobs.length = 0;
    await payoutJobs(service.db, { nowMs: () => expiry - 30_000 }).expireDue();
    assert.deepEqual(addedJobs, [{ task: 'payout.expire_due', runAt: new Date(expiry), jobKey: 'payout-expiry-sweep' }], 'at the expiry');
    addedJobs.length = 0;
    await payoutJobs(service.db).expireDue();
    assert.ok(Math.abs(addedJobs[0]!.runAt!.getTime() - (Date.now() + 60_000)) < 5_000, 'a minute on when the next is further');
    await payoutJobs(service.db, { nowMs: () => expiry }).expireDue();
    assert.equal((await api.record(id))['payoutStatus'], 'EXPD');
  });

  test('a payout.expire job left by an earlier version expires its listed payouts, and refuses to run early', async () => {
    const early = String((await api.created(payoutBody()))['payoutId']);
    await assert.rejects(payoutJobs(service.db).expireListed(early), /not yet/);
    assert.equal((await api.record(early))['payoutStatus'], 'ACCP');
    const processed = String((await api.created(payoutBody()))['payoutId']);
    assert.equal((await json(await api.process(processed)))['payoutStatus'], 'PRCD');
    await jobs.expireListed(early, processed);
    assert.equal((await api.record(early))['payoutStatus'], 'EXPD');
    assert.equal((await api.record(processed))['payoutStatus'], 'PRCD');
  });
});

describe('cancellation', () => {
  test('ACCP: 202 with cancellation PNDG; the job makes it CNCL and the cancellation PRCD, with events', async () => {
    const id = String((await api.created(payoutBody()))['payoutId']);
    assert.deepEqual(await json(await api.cancel(id, 'changed my mind')), { payoutStatus: 'ACCP', payoutCancellationStatus: 'PNDG' });
    assert.deepEqual(await json(await api.status(id)), { payoutStatus: 'ACCP', payoutCancellationStatus: 'PNDG' });
    assert.equal((await api.cancel(id)).status, 202, 'a repeated cancel while pending answers the same');
    const process = await api.process(id);
    assert.equal(process.status, 409, 'no processing while a cancellation is pending');
    assert.match(String((await json(process))['detail']), /payoutCancellationStatus: PNDG/);
    await jobs.cancel(id);
    assert.deepEqual(await json(await api.status(id)), { payoutStatus: 'CNCL', payoutCancellationStatus: 'PRCD' });
    const { rows } = await service.db.query(`SELECT sequence, type, data FROM events WHERE resource_id = $1 ORDER BY sequence`, [id]);
    assert.deepEqual(rows.map((r) => [r.sequence, r.type.split('.')[1], r.data.payoutStatus, r.data.payoutCancellationStatus ?? null]), [
      [1, 'status_changed', 'ACCP', null],
      [2, 'cancellation_status_changed', 'ACCP', 'PNDG'],
      [3, 'status_changed', 'CNCL', 'PNDG'],
      [4, 'cancellation_status_changed', 'CNCL', 'PRCD'],
    ]);
    await jobs.cancel(id); // a second run changes nothing
    assert.equal((await api.record(id))['payoutStatus'], 'CNCL');
  });

  test('PNDG: the partner withdraws the payout: CNCL', async () => {
    const id = await payoutIn('PNDG');
    await api.cancel(id);
    await jobs.cancel(id);
    assert.deepEqual(await json(await api.status(id)), { payoutStatus: 'CNCL', payoutCancellationStatus: 'PRCD', cashoutStatus: 'READY_FOR_PICKUP' });
  });

  test('paid before the cancellation reached the partner: the cancellation is RJCT and the payout PRCD', async () => {
    const id = await payoutIn('PNDG');
    await api.cancel(id);
    assert.equal((await api.simulate(id, { payoutStatus: 'PRCD' })).status, 200);
    await jobs.cancel(id);
    assert.deepEqual(await json(await api.status(id)), { payoutStatus: 'PRCD', payoutCancellationStatus: 'RJCT', cashoutStatus: 'PAID' });
  });

  test('while a submission is in flight the cancel job waits for it', async () => {
    const id = String((await api.created(payoutBody()))['payoutId']);
    await api.cancel(id);
    await service.db.query(`UPDATE payouts SET submission_state = 'SUBMITTING' WHERE payout_id = $1`, [id]);
    await assert.rejects(jobs.cancel(id), /being submitted/);
    assert.equal((await api.record(id))['payoutCancellationStatus'], 'PNDG');
  });

  test('a cancellation reason of more than 50 characters is 400', async () => {
    const id = String((await api.created(payoutBody()))['payoutId']);
    const response = await api.cancel(id, 'x'.repeat(51));
    assert.equal(response.status, 400);
    assert.match(String((await json(response))['detail']), /^cancellationReason: /);
  });
});
