// `node bench/statement.ts`: how long a prefund statement page takes on a long history. Boots the
// real service (embedded PostgreSQL, no workers), writes STATEMENT_BENCH_MOVEMENTS movements into
// one prefund account through the ledger (credits, reservations, posts and releases), then times
// statement pages over HTTP: the first page each way, a page deep in the history through a cursor,
// and pages with a time range starting near the beginning and near the end. Prints the median of
// STATEMENT_BENCH_ROUNDS reads per case.
import { randomUUID } from 'node:crypto';
import { startTestService } from '../test/support/service.ts';
import { token, bearer } from '../test/support/http.ts';
import { createTransfers, postPending, voidPending } from '../src/ledger/service.ts';
import { fundingAccount, payoutClearingAccount, prefundAccount } from '../src/ledger/accounts.ts';
import { withTransaction } from '../src/platform/database/transaction.ts';

const MOVEMENTS = Number(process.env['STATEMENT_BENCH_MOVEMENTS'] ?? 200_000);
const ROUNDS = Number(process.env['STATEMENT_BENCH_ROUNDS'] ?? 20);
const BATCH = 1000;

const service = await startTestService({ WORKERS: '0' });
try {
  const prefund = prefundAccount('DEMO_SOURCE_1', 'PARTNER_MX', 'MXN');
  const funding = fundingAccount('PARTNER_MX', 'MXN');
  const clearing = payoutClearingAccount('PARTNER_MX', 'MXN');
  const started = Date.now();
  let written = 0;
  let firstHalfTime = '';
  while (written < MOVEMENTS) {
    // per batch: BATCH credits, BATCH reservations, half posted and half released (4 * BATCH movements)
    const references = Array.from({ length: BATCH }, () => randomUUID());
    await withTransaction(service.db, async (client) => {
      await createTransfers(client, references.map(() => [{ transferId: randomUUID(), debit: funding, credit: prefund, amount: 500n, reason: 'SANDBOX_PREFUND_CREDIT', reference: 'bench' }]), { twoPhase: false });
      await createTransfers(client, references.map((reference) => [{ transferId: randomUUID(), debit: prefund, credit: clearing, amount: 300n, reason: 'PAYOUT', reference }]), { twoPhase: true });
      await postPending(client, ...references.slice(0, BATCH / 2));
      for (const reference of references.slice(BATCH / 2)) await voidPending(client, reference);
    });
    written += 4 * BATCH;
    if (!firstHalfTime && written >= MOVEMENTS / 10) firstHalfTime = new Date().toISOString();
  }
  await service.db.query('ANALYZE ledger_transfers');
  console.log(`wrote ${written} movements in ${Date.now() - started} ms`);
  const member = await token(service.url, { scope: 'member' });
  const url = (query: string) => `${service.url}/v2/destination-members/PARTNER_MX/statement?${query}`;
  const get = async (query: string) => {
    const response = await fetch(url(query), { headers: bearer(member) });
    if (response.status !== 200) throw new Error(`${query}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { nextAfter: string | null; movements: unknown[] };
  };
  // a cursor in the middle of the history
  let deep = await get('limit=100');
  for (let page = 0; page < 5; page++) deep = await get(`limit=100&after=${encodeURIComponent(deep.nextAfter!)}`);
  const middle = await service.db.query<{ at: string }>(
    `SELECT created_at AS at FROM ledger_transfers ORDER BY created_seq OFFSET $1 LIMIT 1`, [Math.floor(written / 4)]);
  const lateFrom = new Date(Date.now() - 1000).toISOString();
  const cases: Array<[string, string]> = [
    ['oldest first, first page', 'limit=100'],
    ['newest first, first page', 'limit=100&order=desc'],
    ['oldest first, through a cursor', `limit=100&after=${encodeURIComponent(deep.nextAfter!)}`],
    ['newest first, through a cursor', `limit=100&order=desc&after=${encodeURIComponent(deep.nextAfter!)}`],
    ['oldest first, from early in the history (sums what follows once)', `limit=100&from=${encodeURIComponent(firstHalfTime)}`],
    ['newest first, to a quarter in (sums what follows once)', `limit=100&order=desc&to=${encodeURIComponent(new Date(middle.rows[0]!.at).toISOString())}`],
    ['oldest first, from the last second', `limit=100&from=${encodeURIComponent(lateFrom)}`],
  ];
  for (const [name, query] of cases) {
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const t0 = performance.now();
      await get(query);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(`${name}: median ${times[Math.floor(times.length / 2)]!.toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`);
  }
} finally {
  await service.stop();
}
