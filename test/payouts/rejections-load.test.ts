// Create + process under load with about 30% of beneficiaries refused by the rail, from two
// source members into one destination member: creation batches (each prefund, the shared
// clearing and fee accounts) run beside answer batches that void the rejected payouts'
// reservations. No request may answer 5xx, and the ledger must add up afterwards.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO, DEMO_2, token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { checkLedger } from '../../src/ledger/service.ts';
import { REJECTING_LAST_NAME } from '../../src/payouts/rails/sandbox.ts';

/** Payouts per source member, and how many run at once per source member. */
const PAYOUTS_PER_MEMBER = 250;
const CONCURRENCY_PER_MEMBER = 20;
const REJECTED_EVERY = 3; // one in three: about 30 % refused by the rail

let service: TestService;
before(async () => {
  service = await startTestService({ WORKERS: '2', RATE_LIMIT_PER_MINUTE: '1000000' });
});
after(async () => {
  await service.stop();
});

interface Tally {
  statuses: number[];
  created: string[];
  rejected: Set<string>;
  serverErrors: string[];
}

async function runMember(clientId: string, secret: string, tally: Tally): Promise<void> {
  const api = payoutApi(service.url, await token(service.url, { clientId, secret, scope: 'payouts' }));
  let next = 0;
  const note = async (response: Response, what: string) => {
    const text = await response.text();
    tally.statuses.push(response.status);
    if (response.status >= 500) tally.serverErrors.push(`${what}: ${response.status} ${text}`);
    return { status: response.status, text };
  };
  const worker = async () => {
    for (let n = next++; n < PAYOUTS_PER_MEMBER; n = next++) {
      const reject = n % REJECTED_EVERY === 0;
      const body = payoutBody('MX_SPEI', { payoutAmt: 100 + (n % 7) });
      if (reject) (body['beneficiary'] as Record<string, unknown>)['lastName'] = REJECTING_LAST_NAME;
      const created = await note(await api.create(body), 'create');
      if (created.status !== 201) continue;
      const payoutId = String((JSON.parse(created.text) as Record<string, unknown>)['payoutId']);
      tally.created.push(payoutId);
      if (reject) tally.rejected.add(payoutId);
      await note(await api.process(payoutId), 'process');
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY_PER_MEMBER }, worker));
}

async function deadlocksSoFar(): Promise<number> {
  const { rows } = await service.db.query<{ n: string }>(
    'SELECT deadlocks::text AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]!.n);
}

describe('create + process with rejections', () => {
  test('no 5xx, rejected reservations voided, processed ones posted, totals equal their transfers', async () => {
    const tally: Tally = { statuses: [], created: [], rejected: new Set(), serverErrors: [] };
    const deadlocksBefore = await deadlocksSoFar();
    const startedMs = Date.now();
    await Promise.all([runMember(DEMO.clientId, DEMO.secret, tally), runMember(DEMO_2.clientId, DEMO_2.secret, tally)]);
    const elapsedMs = Date.now() - startedMs;
    await service.db.query('SELECT pg_stat_force_next_flush()').catch(() => undefined);
    const deadlocks = (await deadlocksSoFar()) - deadlocksBefore;
    const fiveHundreds = tally.statuses.filter((s) => s >= 500).length;
    console.log(`load: ${tally.statuses.length} requests in ${elapsedMs} ms, ${fiveHundreds} answered 5xx, ${deadlocks} deadlocks detected by PostgreSQL`);
    assert.deepEqual(tally.serverErrors.slice(0, 5), []);
    assert.equal(deadlocks, 0, 'every path locks ledger accounts in one order: PostgreSQL finds no deadlock to break');
    assert.equal(tally.created.length, 2 * PAYOUTS_PER_MEMBER);

    const { rows } = await service.db.query<{ payoutId: string; payoutStatus: string; states: string[] }>(
      `SELECT p.payout_id AS "payoutId", p.payout_status AS "payoutStatus", array_agg(DISTINCT t.state ORDER BY t.state) AS states
         FROM payouts p JOIN ledger_transfers t ON t.reference = p.payout_id::text
        WHERE p.payout_id = ANY($1::uuid[]) GROUP BY p.payout_id, p.payout_status`,
      [tally.created],
    );
    assert.equal(rows.length, tally.created.length);
    for (const row of rows) {
      const expected = tally.rejected.has(row.payoutId) ? { payoutStatus: 'RJCT', states: ['VOIDED'] } : { payoutStatus: 'PRCD', states: ['POSTED'] };
      assert.deepEqual({ payoutStatus: row.payoutStatus, states: row.states }, expected, `payout ${row.payoutId}`);
    }
    assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
  });
});
