// GET /v2/destination-members/{destinationMemberId}/statement: the movements of a prefund
// account after real operations (sandbox credits and debits, payouts through every ending, a
// settlement), their running balances against GET /v2/destination-members, paging while payouts
// are being created and completed, CSV, and every refusal.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO_2, bearer, expectError, json, token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { payoutJobs } from '../support/payout-jobs.ts';
import { settlementApi } from '../support/settlements.ts';
import { randomUUID } from 'node:crypto';
import { checkLedger, createTransfers, postPending } from '../../src/ledger/service.ts';
import { fundingAccount, payoutClearingAccount, prefundAccount } from '../../src/ledger/accounts.ts';
import { createMembersService } from '../../src/members/service.ts';

type Movement = {
  movementId: string; transferId: string; time: string; type: string; affects: 'BALANCE' | 'AVAILABLE_BALANCE' | 'BOTH';
  amount: number; runningBalance: number; runningAvailableBalance: number; payoutId?: string; settlementId?: string; description: string;
};
type Statement = {
  destinationMemberId: string; currency: string; order: string; balance: number; availableBalance: number;
  movements: Movement[]; hasMore: boolean; nextAfter: string | null;
};

let service: TestService;
let member: string;
let member2: string;
let api: ReturnType<typeof payoutApi>;
let jobs: ReturnType<typeof payoutJobs>;
const DAY_MS = 86_400_000;

before(async () => {
  service = await startTestService({ WORKERS: '0' });
  member = await token(service.url);
  member2 = await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret });
  api = payoutApi(service.url, member);
  jobs = payoutJobs(service.db, { nowMs: () => Date.now() + DAY_MS + 60_000 }); // a day on: payouts still ACCP expire
});
after(async () => {
  await service.stop();
});

const statementUrl = (query = '', destination = 'PARTNER_MX') => `${service.url}/v2/destination-members/${destination}/statement${query ? `?${query}` : ''}`;
const read = (query = '', accessToken = member, destination = 'PARTNER_MX', headers: Record<string, string> = {}) =>
  fetch(statementUrl(query, destination), { headers: { ...bearer(accessToken), ...headers } });
async function statement(query = '', accessToken = member, destination = 'PARTNER_MX'): Promise<Statement> {
  const response = await read(query, accessToken, destination);
  assert.equal(response.status, 200, await response.clone().text());
  return json<Statement>(response);
}

/** Every page, following nextAfter (bounded). */
async function allPages(query: string, accessToken = member, destination = 'PARTNER_MX'): Promise<Movement[]> {
  const lines: Movement[] = [];
  let after: string | null = null;
  for (let page = 0; page < 500; page++) {
    const s: Statement = await statement(`${query}${after ? `&after=${encodeURIComponent(after)}` : ''}`, accessToken, destination);
    lines.push(...s.movements);
    if (!s.hasMore) return lines;
    after = s.nextAfter;
  }
  throw new Error('too many pages');
}

async function prefund(accessToken = member, destination = 'PARTNER_MX'): Promise<{ balance: number; availableBalance: number }> {
  const list = await json<Array<{ memberId: string; prefundBalance: Array<{ balance: number; availableBalance: number }> }>>(
    await fetch(`${service.url}/v2/destination-members`, { headers: bearer(accessToken) }));
  const { balance, availableBalance } = list.find((m) => m.memberId === destination)!.prefundBalance[0]!;
  return { balance, availableBalance };
}

const adjust = async (amount: number, accessToken = member) => {
  const response = await fetch(`${service.url}/v2/sandbox/prefund`, {
    method: 'POST', headers: { ...bearer(accessToken), 'content-type': 'application/json' },
    body: JSON.stringify({ destinationMemberId: 'PARTNER_MX', currency: 'MXN', amount }),
  });
  assert.equal(response.status, 200);
};

/** Exact decimal arithmetic for the checks (centavos). */
const cents = (n: number) => Math.round(n * 100);

/** Each line's running balances follow from the one before by its amount and what it affects. */
function assertRunning(lines: Movement[], start = { balance: 0, available: 0 }) {
  let { balance, available } = { balance: cents(start.balance), available: cents(start.available) };
  for (const line of lines) {
    if (line.affects !== 'AVAILABLE_BALANCE') balance += cents(line.amount);
    if (line.affects !== 'BALANCE') available += cents(line.amount);
    assert.deepEqual([cents(line.runningBalance), cents(line.runningAvailableBalance)], [balance, available], `after ${line.movementId} ${line.type}`);
  }
}

/** (type, amount, reference) per line; lines written by one transaction for one payout compare in any order. */
function shape(lines: Movement[]): string[][] {
  const groups: string[][] = [];
  let key = '';
  for (const line of lines) {
    const phase = line.movementId.split(':')[1] ?? 'created';
    const next = `${line.payoutId ?? line.movementId}/${phase}`;
    if (next !== key || !line.payoutId) groups.push([]);
    key = next;
    groups.at(-1)!.push(`${line.type} ${line.amount} ${line.payoutId ?? line.settlementId ?? '-'}`);
  }
  return groups.map((g) => g.sort());
}

async function payout(overrides: Record<string, unknown> = {}, provider = 'MX_SPEI'): Promise<{ id: string; fee: number; amount: number }> {
  const created = await api.created(payoutBody(provider, { payoutAmt: 200, ...overrides }));
  return { id: String(created['payoutId']), fee: Number(created['transferFee']), amount: Number(created['payoutAmt']) };
}

const advance = (id: string) => fetch(`${service.url}/v2/sandbox/settlements/${id}/advance`, { method: 'POST', headers: bearer(member) });

async function completedSettlement(): Promise<{ id: string; received: number }> {
  const created = await settlementApi(service.url, member).settle('PARTNER_MX', { settlementAmt: 1000 });
  const id = String(created['settlementId']);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const record = await json(await advance(id));
    if (record['settlementStatus'] === 'S600_COMPLETED') return { id, received: Number(record['settlementAmtReceived']) };
    assert.ok(Date.now() < deadline, `settlement ${id} stuck at ${String(record['settlementStatus'])}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the statement after real operations', () => {
  test('lists exactly the movements, with their types, amounts and running balances, ending at GET /v2/destination-members', async () => {
    await adjust(1000.05);
    await adjust(-0.05);
    const paid = await payout();
    assert.equal((await api.process(paid.id)).status, 200); // MX_SPEI confirms at once: PRCD
    const rejected = await payout({ beneficiary: { firstName: 'Maria', lastName: 'REJECT', accountNumber: '032180000118359719' } });
    assert.equal((await api.process(rejected.id)).status, 200);
    assert.equal((await api.record(rejected.id))['payoutStatus'], 'RJCT');
    const cancelled = await payout();
    assert.equal((await api.cancel(cancelled.id)).status, 202);
    await jobs.cancel(cancelled.id);
    assert.equal((await api.record(cancelled.id))['payoutStatus'], 'CNCL');
    const expired = await payout();
    await jobs.expireDue();
    assert.equal((await api.record(expired.id))['payoutStatus'], 'EXPD');
    const reversed = await payout({}, 'MX_CASH');
    assert.equal((await api.process(reversed.id)).status, 200); // PNDG: ready for pickup
    assert.equal((await api.simulate(reversed.id, { payoutStatus: 'PRCD' })).status, 200);
    assert.equal((await api.simulate(reversed.id, { payoutStatus: 'RVSD' })).status, 200);
    const settlement = await completedSettlement();
    const open = await payout({ payoutAmt: 333.33 }); // still reserved at the end: balance and availableBalance differ

    const s = await statement('limit=100');
    assert.deepEqual([s.destinationMemberId, s.currency, s.order, s.hasMore], ['PARTNER_MX', 'MXN', 'asc', false]);
    const reserve = (p: { id: string; amount: number; fee: number }) => [[`PAYOUT_FEE_RESERVED ${-p.fee} ${p.id}`, `PAYOUT_RESERVED ${-p.amount} ${p.id}`]];
    const posted = (p: { id: string; amount: number; fee: number }) => [[`PAYOUT_FEE_POSTED ${-p.fee} ${p.id}`, `PAYOUT_POSTED ${-p.amount} ${p.id}`]];
    const released = (p: { id: string; amount: number; fee: number }) => [[`PAYOUT_FEE_RELEASED ${p.fee} ${p.id}`, `PAYOUT_RELEASED ${p.amount} ${p.id}`]];
    assert.deepEqual(shape(s.movements), [
      ['SANDBOX_PREFUND_CREDIT 5000000 -'],
      ['SANDBOX_PREFUND_CREDIT 1000.05 -'],
      ['SANDBOX_PREFUND_DEBIT -0.05 -'],
      ...reserve(paid), ...posted(paid),
      ...reserve(rejected), ...released(rejected),
      ...reserve(cancelled), ...released(cancelled),
      ...reserve(expired), ...released(expired),
      ...reserve(reversed), ...posted(reversed),
      [`PAYOUT_FEE_REVERSAL ${reversed.fee} ${reversed.id}`, `PAYOUT_REVERSAL ${reversed.amount} ${reversed.id}`],
      [`SETTLEMENT_CREDIT ${settlement.received} ${settlement.id}`],
      ...reserve(open),
    ]);
    assert.ok(paid.fee > 0, 'the provider charges a fee, so fee lines are there');
    const byType = (type: string) => s.movements.filter((m) => m.type === type);
    assert.ok(byType('PAYOUT_RESERVED').every((m) => m.affects === 'AVAILABLE_BALANCE'));
    assert.ok(byType('PAYOUT_POSTED').every((m) => m.affects === 'BALANCE' && m.movementId === `${m.transferId}:posted`));
    assert.ok(byType('PAYOUT_RELEASED').every((m) => m.affects === 'AVAILABLE_BALANCE' && m.movementId === `${m.transferId}:released`));
    assert.ok(byType('PAYOUT_RESERVED').every((m) => m.movementId === m.transferId));
    assert.deepEqual(byType('SETTLEMENT_CREDIT').map((m) => [m.affects, m.description]), [['BOTH', 'Settlement received']]);
    assert.equal(s.movements[0]!.description, 'Sandbox opening prefund');
    // a reservation and its post share the transfer id; every movement id is unique
    const posts = byType('PAYOUT_POSTED').map((m) => m.transferId);
    assert.ok(posts.every((id) => byType('PAYOUT_RESERVED').some((m) => m.transferId === id)));
    assert.equal(new Set(s.movements.map((m) => m.movementId)).size, s.movements.length);

    assertRunning(s.movements);
    const now = await prefund();
    const last = s.movements.at(-1)!;
    assert.deepEqual({ balance: last.runningBalance, availableBalance: last.runningAvailableBalance }, now);
    assert.deepEqual({ balance: s.balance, availableBalance: s.availableBalance }, now);
    assert.equal(cents(now.balance) - cents(now.availableBalance), cents(open.amount) + cents(open.fee));

    const desc = await statement('limit=100&order=desc');
    assert.deepEqual(desc.movements, [...s.movements].reverse());
    assert.equal(desc.nextAfter, null);
    assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
  });

  test('a time range keeps the movements of [from, to), with the running balances of the whole history', async () => {
    const whole = await allPages('limit=100');
    const times = whole.map((m) => m.time);
    const from = times[3]!;
    const to = times.find((t) => t > from && t > times[8]!) ?? times.at(-1)!;
    const inRange = whole.filter((m) => m.time >= from && m.time < to);
    assert.ok(inRange.length > 0 && inRange.length < whole.length);
    const q = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
    assert.deepEqual(await allPages(`limit=2&${q}`), inRange);
    assert.deepEqual(await allPages(`limit=3&order=desc&${q}`), [...inRange].reverse());
    assert.deepEqual(await allPages(`limit=100&from=${encodeURIComponent(to)}`), whole.filter((m) => m.time >= to));
  });
});

describe('paging', () => {
  test('small pages in both orders give the whole statement, each line once', async () => {
    const whole = (await statement('limit=100')).movements;
    assert.deepEqual(await allPages('limit=1'), whole);
    assert.deepEqual(await allPages('limit=7'), whole);
    assert.deepEqual(await allPages('limit=4&order=desc'), [...whole].reverse());
    const first = await statement('limit=50');
    assert.equal(first.movements.length, whole.length <= 50 ? whole.length : 50);
  });

  test('while payouts are created and completed concurrently, pages neither skip nor repeat a movement', async () => {
    const before = (await statement('limit=100&order=desc')).movements;
    const start = before.length;
    const creations = (async () => {
      for (let round = 0; round < 6; round++) {
        const made = await Promise.all(Array.from({ length: 4 }, () => payout({ payoutAmt: 10 + round })));
        await Promise.all(made.slice(0, 2).map((p) => api.process(p.id))); // posted
        await Promise.all([api.cancel(made[2]!.id).then(() => jobs.cancel(made[2]!.id)), adjust(1)]); // released, credited
      }
    })();
    let writing = true;
    void creations.finally(() => { writing = false; });
    const seen: Movement[] = [];
    let after: string | null = null;
    let rounds = 0;
    // oldest first with pages of 2 while the writers run, then on until the cursor has caught up
    for (;;) {
      const writersDone = !writing; // judged before the read, so the read sees all they wrote
      const s: Statement = await statement(`limit=2${after ? `&after=${encodeURIComponent(after)}` : ''}`);
      seen.push(...s.movements);
      after = s.nextAfter;
      rounds++;
      if (writersDone && !s.hasMore) break;
      assert.ok(rounds < 2000, 'bounded');
    }
    await creations;
    const final = await allPages('limit=100');
    assert.equal(new Set(seen.map((m) => m.movementId)).size, seen.length, 'no movement twice');
    assert.deepEqual(seen, final, 'every movement, in the same order, with the same running balances');
    assert.ok(final.length >= start + 6 * 14, `${final.length - start} new movements`);
    assertRunning(final);
    const last = final.at(-1)!;
    assert.deepEqual({ balance: last.runningBalance, availableBalance: last.runningAvailableBalance }, await prefund());
    // the cursor of the last line stays valid: asking again later answers nothing new and keeps it
    const later = await statement(`limit=2&after=${encodeURIComponent(after!)}`);
    assert.deepEqual([later.movements, later.nextAfter], [[], after]);
  });
});

describe('a read and the writers in flight', () => {
  const prefundMx = prefundAccount('DEMO_SOURCE_1', 'PARTNER_MX', 'MXN');
  const credit = (client: Parameters<typeof createTransfers>[0]) => createTransfers(client, [[{
    transferId: randomUUID(), debit: fundingAccount('PARTNER_MX', 'MXN'), credit: prefundMx, amount: 100n, reason: 'SANDBOX_PREFUND_CREDIT', reference: 'test',
  }]], { twoPhase: false });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** Opens a transaction that does `first` and stays open; `second` commits meanwhile; then a read, then the first commits. */
  async function interleave(first: (c: Parameters<typeof createTransfers>[0]) => Promise<unknown>, second: () => Promise<unknown>) {
    const end = await statement('limit=100&order=desc');
    const cursor = (await statement(`limit=1&order=desc`)).nextAfter; // a cursor at the newest movement (asc from there: what is new)
    assert.ok(end.movements.length > 0 && cursor);
    const client = await service.db.connect();
    try {
      await client.query('BEGIN');
      await first(client); // takes a movement number, holds its lock on the account
      await second(); // takes a later number and commits: it does not wait for the first
      let answered = false;
      const reading = statement(`limit=100&after=${encodeURIComponent(cursor)}`).finally(() => { answered = true; });
      await sleep(300);
      assert.equal(answered, false, 'the read waits for the writer in flight');
      await client.query('COMMIT');
      const page = await reading;
      assert.equal(page.movements.length, 2, 'the read sees both movements, in number order, so its cursor skips neither');
      assertRunning(page.movements, { balance: end.balance, available: end.availableBalance });
    } finally {
      client.release();
    }
  }

  test('a credit in flight (account locked) and a post committed after it, which does not wait for the credit', { timeout: 30_000 }, async () => {
    const reference = randomUUID();
    await withTx((c) => createTransfers(c, [[{ transferId: randomUUID(), debit: prefundMx, credit: payoutClearingAccount('PARTNER_MX', 'MXN'), amount: 5n, reason: 'PAYOUT', reference }]], { twoPhase: true }));
    await interleave(credit, () => withTx((c) => postPending(c, reference)));
  });

  test('a post in flight (account share-locked) and a credit committed after it, which does not wait for the post', { timeout: 30_000 }, async () => {
    const reference = randomUUID();
    await withTx((c) => createTransfers(c, [[{ transferId: randomUUID(), debit: prefundMx, credit: payoutClearingAccount('PARTNER_MX', 'MXN'), amount: 5n, reason: 'PAYOUT', reference }]], { twoPhase: true }));
    await interleave((c) => postPending(c, reference), () => withTx(credit));
  });
});

async function withTx(fn: (client: Parameters<typeof createTransfers>[0]) => Promise<unknown>) {
  const client = await service.db.connect();
  try {
    await client.query('BEGIN');
    await fn(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

describe('CSV', () => {
  test('Accept: text/csv answers the same page as CSV: header line, RFC 4180 quoting, exact amounts, attachment, next link', async () => {
    const api2 = payoutApi(service.url, member2);
    const rejected = await api2.created(payoutBody('MX_SPEI', {
      payoutAmt: 1234.5, beneficiary: { firstName: 'Ana', lastName: 'REJECT', accountNumber: '032180000118359719' },
    }));
    await api2.process(String(rejected['payoutId']));
    const page = await statement('limit=4', member2);
    const response = await read('limit=4', member2, 'PARTNER_MX', { accept: 'text/csv' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(response.headers.get('content-disposition'), 'attachment; filename="statement-PARTNER_MX-MXN.csv"');
    assert.equal(response.headers.get('link'), `</v2/destination-members/PARTNER_MX/statement?limit=4&after=${encodeURIComponent(page.nextAfter!)}>; rel="next"`);
    const [seed, fee, amount, feeBack] = page.movements as [Movement, Movement, Movement, Movement];
    const id = String(rejected['payoutId']);
    const feeText = Number(rejected['transferFee']).toFixed(2);
    const reservedFirst = fee.type === 'PAYOUT_FEE_RESERVED';
    const [feeLine, amountLine] = reservedFirst ? [fee, amount] : [amount, fee];
    const lines = [
      'movementId,transferId,time,type,affects,amount,runningBalance,runningAvailableBalance,payoutId,settlementId,description',
      `${seed.movementId},${seed.transferId},${seed.time},SANDBOX_PREFUND_CREDIT,BOTH,5000000.00,5000000.00,5000000.00,,,Sandbox opening prefund`,
      ...[fee, amount].map((m) => m === feeLine
        ? `${m.movementId},${m.transferId},${m.time},PAYOUT_FEE_RESERVED,AVAILABLE_BALANCE,-${feeText},5000000.00,${m.runningAvailableBalance.toFixed(2)},${id},,Payout fee reserved`
        : `${m.movementId},${m.transferId},${m.time},PAYOUT_RESERVED,AVAILABLE_BALANCE,-1234.50,5000000.00,${m.runningAvailableBalance.toFixed(2)},${id},,Payout amount reserved`),
      `${feeBack.movementId},${feeBack.transferId},${feeBack.time},${feeBack.type},AVAILABLE_BALANCE,${feeBack.amount.toFixed(2)},5000000.00,${feeBack.runningAvailableBalance.toFixed(2)},${id},,` +
        `"${feeBack.description}"`,
    ];
    assert.ok(amountLine.runningAvailableBalance < 5000000);
    assert.match(feeBack.description, /,/);
    assert.equal(await response.text(), `${lines.join('\r\n')}\r\n`);
    // the last page has no next link
    const end = await read(`limit=100&after=${encodeURIComponent(page.nextAfter!)}`, member2, 'PARTNER_MX', { accept: 'text/csv' });
    assert.equal(end.headers.get('link'), null);
    assert.equal((await end.text()).split('\r\n').length, 3); // header, the other release, the final empty string
    // JSON stays the default, and is chosen when preferred
    assert.match(String((await read('limit=1', member2, 'PARTNER_MX', { accept: 'application/json, text/csv;q=0.5' })).headers.get('content-type')), /application\/json/);
  });
});

describe('who may read what', () => {
  test('each member sees only its own prefund movements; another member\'s cursor is refused', async () => {
    const mine = await statement('limit=100');
    const theirs = await allPages('limit=100', member2);
    const mineIds = new Set(mine.movements.map((m) => m.transferId));
    assert.ok(theirs.every((m) => !mineIds.has(m.transferId)));
    assert.deepEqual(theirs.map((m) => m.type).slice(0, 1), ['SANDBOX_PREFUND_CREDIT']);
    await expectError(await read(`after=${encodeURIComponent(mine.nextAfter!)}`, member2), 400, 'VALIDATION_ERROR', /^after: /);
  });

  test('a member with no corridor, or no movement yet, answers an empty statement at zero', async () => {
    const members = createMembersService({ db: service.db });
    assert.ok((await members.create({ memberId: 'PARTNER_TWO_CCY', name: 'Two currencies', kind: 'DESTINATION', countryCode: 'GB', currencies: ['GBP', 'EUR'] })).ok);
    assert.ok((await members.setCorridor({ sourceMemberId: 'DEMO_SOURCE_1', destinationMemberId: 'PARTNER_TWO_CCY', destinationCcy: 'EUR', maxSettlementAmt: '1000' })).ok);
    const empty = await statement('currency=GBP', member, 'PARTNER_TWO_CCY');
    assert.deepEqual([empty.movements, empty.balance, empty.availableBalance, empty.hasMore, empty.nextAfter], [[], 0, 0, false, null]);
    await expectError(await read('', member, 'PARTNER_TWO_CCY'), 400, 'VALIDATION_ERROR', /^currency: required/);
    await expectError(await read('currency=USD', member, 'PARTNER_TWO_CCY'), 400, 'VALIDATION_ERROR', /^currency: /);
    // DEMO_SOURCE_2 has no corridor to it
    await expectError(await read('currency=EUR', member2, 'PARTNER_TWO_CCY'), 404, 'NOT_FOUND', /^destinationMemberId: /);
    // a suspended corridor still has its statement
    assert.equal((await statement('', member, 'PARTNER_GH')).movements[0]!.type, 'SANDBOX_PREFUND_CREDIT');
  });

  test('refusals: status, code and the field named', async () => {
    await expectError(await read('', member, 'PARTNER_XX'), 404, 'NOT_FOUND', /^destinationMemberId: /);
    await expectError(await read('', member, 'DEMO_SOURCE_2'), 404, 'NOT_FOUND', /^destinationMemberId: /);
    await expectError(await read('currency=BRL'), 400, 'VALIDATION_ERROR', /^currency: PARTNER_MX holds MXN/);
    await expectError(await read('currency=mxn'), 400, 'VALIDATION_ERROR', /currency/);
    for (const limit of ['0', '101', 'x', '1.5']) await expectError(await read(`limit=${limit}`), 400, 'VALIDATION_ERROR', /limit/);
    await expectError(await read('order=newest'), 400, 'VALIDATION_ERROR', /order/);
    await expectError(await read('from=yesterday'), 400, 'VALIDATION_ERROR', /from/);
    await expectError(await read('to=2026-13-01T00:00:00Z'), 400, 'VALIDATION_ERROR', /to/);
    await expectError(await read('from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z'), 400, 'VALIDATION_ERROR', /^to: must be later than from/);
    await expectError(await read('from=2026-11-01T00:00:00Z&to=2026-11-01T00:00:00Z'), 400, 'VALIDATION_ERROR', /^to: /);
    // RFC 3339 allows a leap second; it reads as the next minute's first instant, never a 500
    await expectError(await read(`from=${encodeURIComponent('2016-12-31T23:59:60Z')}&to=${encodeURIComponent('2016-12-31T23:59:60Z')}`), 400, 'VALIDATION_ERROR', /^to: /);
    assert.equal((await read(`from=${encodeURIComponent('2016-12-31T23:59:60Z')}&to=${encodeURIComponent('2017-01-01T00:00:01Z')}`)).status, 200);
    await expectError(await read('after=nonsense'), 400, 'VALIDATION_ERROR', /^after: /);
    await expectError(await read(`after=${'a'.repeat(401)}`), 400, 'VALIDATION_ERROR', /after/);
    const { nextAfter } = await statement('limit=1');
    const [payload, mac] = nextAfter!.split('.') as [string, string];
    const forged = Buffer.from(Buffer.from(payload, 'base64url').toString().replace(/"5000000\d*"/g, '"999999999"')).toString('base64url');
    await expectError(await read(`after=${forged}.${mac}`), 400, 'VALIDATION_ERROR', /^after: /);
    await expectError(await read('after=' + encodeURIComponent(nextAfter!), member, 'PARTNER_BR'), 400, 'VALIDATION_ERROR', /^after: /);
    await expectError(await read('colour=blue'), 400, 'VALIDATION_ERROR');
    await expectError(await fetch(statementUrl()), 401, 'UNAUTHORIZED');
    const payoutsOnly = await token(service.url, { scope: 'payouts' });
    await expectError(await read('', payoutsOnly), 403, 'INSUFFICIENT_SCOPE');
  });
});
