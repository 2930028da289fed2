// Concurrent and repeated requests: nothing overdrawn, nothing created, sent or posted twice.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO_2, bearer, json, token } from '../support/http.ts';
import { eventually, payoutApi, payoutBody } from '../support/payouts.ts';
import { checkLedger } from '../../src/ledger/service.ts';

let service: TestService;
let api: ReturnType<typeof payoutApi>;
before(async () => {
  service = await startTestService({ WORKERS: '2' });
  api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
});
after(async () => {
  await service.stop();
});

async function assertLedgerHolds() {
  assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
}

async function transfersOf(payoutId: string) {
  const { rows } = await service.db.query(`SELECT state, count(*)::int AS n FROM ledger_transfers WHERE reference = $1 GROUP BY state ORDER BY state`, [payoutId]);
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

describe('concurrency', () => {
  test('50 parallel creations that together exceed the prefund: exactly the affordable ones succeed', async () => {
    const accessToken = await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret, scope: 'payouts member' });
    // leave exactly 203,000.00 KES available to DEMO_SOURCE_2 at PARTNER_KE
    const adjust = await fetch(`${service.url}/v2/sandbox/prefund`, {
      method: 'POST', headers: { ...bearer(accessToken), 'content-type': 'application/json' },
      body: JSON.stringify({ destinationMemberId: 'PARTNER_KE', currency: 'KES', amount: -(5_000_000 - 203_000) }),
    });
    assert.equal(adjust.status, 200);
    const member = payoutApi(service.url, accessToken);
    // each costs 10,000 + fee (30 + 0.5 %) = 10,080: 20 fit in 203,000
    const responses = await Promise.all(Array.from({ length: 50 }, () => member.create(payoutBody('KE_MPESA', { payoutAmt: 10_000 }))));
    const statuses = responses.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 20);
    assert.equal(statuses.filter((s) => s === 422).length, 30);
    for (const r of responses.filter((r) => r.status === 422)) assert.equal((await json(r))['code'], 'INSUFFICIENT_PREFUND');
    const list = await json<Array<{ memberId: string; prefundBalance: Array<{ availableBalance: number; balance: number }> }>>(
      await fetch(`${service.url}/v2/destination-members`, { headers: bearer(accessToken) }),
    );
    const kenya = list.find((m) => m.memberId === 'PARTNER_KE')!.prefundBalance[0]!;
    assert.deepEqual(kenya, { currency: 'KES', balance: 203_000, availableBalance: 1_400 });
    await assertLedgerHolds();
  });

  test('20 parallel identical creations make one payout with one reservation', async () => {
    const body = payoutBody('MX_SPEI', { payoutAmt: 250 });
    const responses = await Promise.all(Array.from({ length: 20 }, () => api.create(body)));
    assert.deepEqual([...new Set(responses.map((r) => r.status))], [201]);
    const ids = new Set(await Promise.all(responses.map(async (r) => (await json(r))['payoutId'])));
    assert.equal(ids.size, 1);
    assert.equal(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 19);
    const [id] = [...ids] as string[];
    assert.deepEqual(await transfersOf(id!), { PENDING: 2 });
    const { rows } = await service.db.query('SELECT count(*)::int AS n FROM payouts WHERE source_member_payout_id = $1', [body['sourceMemberPayoutId']]);
    assert.equal(rows[0].n, 1);
  });

  test('20 parallel process calls on one payout: one partner submission, one posting, one event', async () => {
    const id = String((await api.created(payoutBody('MX_SPEI', { payoutAmt: 300 })))['payoutId']);
    const answers = await Promise.all(Array.from({ length: 20 }, () => api.process(id)));
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.equal((await json(answer))['payoutStatus'], 'PRCD');
    }
    const { rows } = await service.db.query('SELECT submissions FROM sandbox_rail_submissions WHERE payout_id = $1', [id]);
    assert.deepEqual(rows, [{ submissions: 1 }]);
    assert.deepEqual(await transfersOf(id), { POSTED: 2 });
    const events = await service.db.query(`SELECT count(*)::int AS n FROM events WHERE resource_id = $1`, [id]);
    assert.equal(events.rows[0].n, 2);
    await assertLedgerHolds();
  });

  test('cancel racing process ends in one consistent outcome every time', async () => {
    for (let round = 0; round < 10; round++) {
      const id = String((await api.created(payoutBody('MX_SPEI', { payoutAmt: 120 })))['payoutId']);
      const [processed, cancelled] = await Promise.all([api.process(id), api.cancel(id)]);
      assert.ok([200, 409].includes(processed.status), `process answered ${processed.status}`);
      assert.ok([202, 409].includes(cancelled.status), `cancel answered ${cancelled.status}`);
      const final = await eventually(() => api.record(id), (r) => r['payoutCancellationStatus'] !== 'PNDG' && r['payoutStatus'] !== 'ACCP');
      const outcome = `${final['payoutStatus']}/${final['payoutCancellationStatus'] ?? '-'}`;
      assert.ok(['PRCD/-', 'PRCD/RJCT', 'CNCL/PRCD'].includes(outcome), `round ${round}: ${outcome}`);
      if (final['payoutStatus'] === 'CNCL') {
        assert.equal(processed.status, 409);
        assert.deepEqual(await transfersOf(id), { VOIDED: 2 });
      } else {
        assert.deepEqual(await transfersOf(id), { POSTED: 2 });
      }
    }
    await assertLedgerHolds();
  });

  test('the workers run the cancel job by themselves', async () => {
    const id = String((await api.created(payoutBody()))['payoutId']);
    assert.equal((await api.cancel(id)).status, 202);
    const final = await eventually(() => api.record(id), (r) => r['payoutStatus'] === 'CNCL');
    assert.equal(final['payoutCancellationStatus'], 'PRCD');
  });
});
