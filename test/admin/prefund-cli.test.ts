// npm run admin -- prefund ... (and the member and corridor steps of a production setup before
// it): prefund moved by operators with a reason, one audited ledger transfer per operator
// reference, never below what payouts have reserved, visible to the source member's API.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { adminCli } from '../support/admin.ts';
import { DEMO_2, bearer, json, token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { auditFor } from '../../src/audit/repo.ts';
import { checkLedger } from '../../src/ledger/service.ts';

let service: TestService;
const { admin, adminJson, refused } = adminCli(() => service.dataDir);

before(async () => {
  service = await startTestService({ WORKERS: '0' });
});
after(async () => {
  await service.stop();
});

async function assertLedgerBalanced(): Promise<void> {
  assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
}

async function transfersOf(reference: string) {
  const { rows } = await service.db.query<{ reason: string; amount: string; currency: string }>(
    'SELECT reason, amount::text AS amount, currency FROM ledger_transfers WHERE reference = $1', [`operator-prefund:${reference}`]);
  return rows;
}

const move = (direction: 'credit' | 'debit', source: string, destination: string, amount: string, extra: string[] = []) =>
  ['prefund', direction, '--source', source, '--destination', destination, '--currency', 'KES', `--amount=${amount}`, '--reason', 'wire 2026-11-23 ref X', ...extra];

test('production setup: member, audited corridor, then a credit with a reference, once only', async () => {
  await adminJson(['members', 'create', '--id', 'OPS_SOURCE', '--name', 'Ops Source', '--kind', 'source', '--country', 'US', '--currencies', 'USD', '--actor', 'ops-alice']);
  assert.deepEqual((await auditFor(service.db, 'member:OPS_SOURCE')).map((a) => [a.actor, a.action]), [['ops-alice', 'members.create']]);
  await refused(move('credit', 'OPS_SOURCE', 'PARTNER_KE', '1000.00'), 1, /NO_CORRIDOR/);

  await adminJson(['corridors', 'set', '--source', 'OPS_SOURCE', '--destination', 'PARTNER_KE', '--max-settlement-amt', '1000.00', '--actor', 'ops-alice']);
  await adminJson(['corridors', 'set', '--source', 'OPS_SOURCE', '--destination', 'PARTNER_KE', '--max-settlement-amt', '2500.00', '--active', 'false', '--actor', 'ops-bob']);
  const corridorAudit = await auditFor(service.db, 'corridor:OPS_SOURCE:PARTNER_KE:KES');
  assert.deepEqual(corridorAudit.map((a) => [a.actor, a.action]), [['ops-alice', 'corridors.set'], ['ops-bob', 'corridors.set']]);
  assert.equal(corridorAudit[0]!.before, null);
  assert.deepEqual(corridorAudit[1]!.before, { sourceMemberId: 'OPS_SOURCE', destinationMemberId: 'PARTNER_KE', destinationCcy: 'KES', active: true, maxSettlementAmt: '1000.00' });
  assert.deepEqual(corridorAudit[1]!.after, { sourceMemberId: 'OPS_SOURCE', destinationMemberId: 'PARTNER_KE', destinationCcy: 'KES', active: false, maxSettlementAmt: '2500.00' });
  await refused(['corridors', 'set', '--source', 'OPS_SOURCE', '--destination', 'PARTNER_KE', '--currency', 'USD'], 1, /UNSUPPORTED_CURRENCY/);
  assert.equal((await auditFor(service.db, 'corridor:OPS_SOURCE:PARTNER_KE:USD')).length, 0, 'a refused corridor change leaves no audit row');

  const credit = await adminJson(move('credit', 'OPS_SOURCE', 'PARTNER_KE', '1000.00', ['--reference', 'wire-2026-11-23-X', '--actor', 'ops-alice']));
  assert.deepEqual([credit['operatorReference'], credit['direction'], credit['amount'], credit['replayed'], credit['balance'], credit['availableBalance']],
    ['wire-2026-11-23-X', 'CREDIT', '1000.00', false, '1000.00', '1000.00']);
  assert.deepEqual(await transfersOf('wire-2026-11-23-X'), [{ reason: 'OPERATOR_PREFUND_CREDIT', amount: '100000', currency: 'KES' }]);
  const audit = await auditFor(service.db, 'prefund:OPS_SOURCE:PARTNER_KE:KES');
  assert.deepEqual(audit.map((a) => [a.actor, a.action]), [['ops-alice', 'prefund.credit']]);
  assert.deepEqual((audit[0]!.before as { balance: { balance: string } }).balance.balance, '0.00');
  assert.deepEqual((audit[0]!.after as { reason: string; balance: { balance: string } }).balance.balance, '1000.00');
  assert.equal((audit[0]!.after as { reason: string }).reason, 'wire 2026-11-23 ref X');

  const again = await admin(move('credit', 'OPS_SOURCE', 'PARTNER_KE', '1000.00', ['--reference', 'wire-2026-11-23-X']));
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /Nothing moved: reference wire-2026-11-23-X was applied already/);
  assert.equal((await transfersOf('wire-2026-11-23-X')).length, 1, 'the same reference moves money once');
  assert.equal((await auditFor(service.db, 'prefund:OPS_SOURCE:PARTNER_KE:KES')).length, 1);
  await refused(move('credit', 'OPS_SOURCE', 'PARTNER_KE', '1000.01', ['--reference', 'wire-2026-11-23-X']), 1, /REFERENCE_REUSED/);
  await refused(move('debit', 'OPS_SOURCE', 'PARTNER_KE', '1000.00', ['--reference', 'wire-2026-11-23-X']), 1, /REFERENCE_REUSED/);

  const unnamed = await admin(move('credit', 'OPS_SOURCE', 'PARTNER_KE', '0.50'));
  assert.equal(unnamed.code, 0, unnamed.stderr);
  const reference = /Operator reference: (opr_[0-9a-f-]{36})/.exec(unnamed.stdout)?.[1];
  assert.ok(reference, unnamed.stdout);
  assert.equal((await transfersOf(reference)).length, 1);
  const shown = await adminJson<Array<Record<string, unknown>>>(['prefund', 'show', '--source', 'OPS_SOURCE', '--destination', 'PARTNER_KE']);
  assert.deepEqual(shown, [{ sourceMemberId: 'OPS_SOURCE', destinationMemberId: 'PARTNER_KE', currency: 'KES', balance: '1000.50', availableBalance: '1000.50', reserved: '0.00' }]);
  await assertLedgerBalanced();
});

test('a credit is visible to the source member in GET /v2/destination-members, the ledger balanced', async () => {
  const accessToken = await token(service.url);
  const kenya = async () => (await json<Array<{ memberId: string; prefundBalance: Array<{ currency: string; balance: number; availableBalance: number }> }>>(
    await fetch(`${service.url}/v2/destination-members`, { headers: bearer(accessToken) }))).find((m) => m.memberId === 'PARTNER_KE')!.prefundBalance[0]!;
  const before = await kenya();
  await adminJson(move('credit', 'DEMO_SOURCE_1', 'PARTNER_KE', '250.50'));
  const after = await kenya();
  assert.equal(after.balance, 5_000_250.5);
  assert.equal(before.balance, 5_000_000);
  assert.equal(after.availableBalance - before.availableBalance, 250.5);
  await assertLedgerBalanced();
});

test('a debit never goes below what payouts have reserved: INSUFFICIENT_PREFUND, exit 1; down to it, it goes', async () => {
  const accessToken = await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret });
  await payoutApi(service.url, accessToken).created(payoutBody('KE_MPESA', { payoutAmt: 1000 }));
  const [start] = await adminJson<Array<Record<string, string>>>(['prefund', 'show', '--source', 'DEMO_SOURCE_2', '--destination', 'PARTNER_KE']);
  assert.deepEqual([start!['balance'], start!['reserved'], start!['availableBalance']], ['5000000.00', '1035.00', '4998965.00']);

  await refused(move('debit', 'DEMO_SOURCE_2', 'PARTNER_KE', '4998965.01', ['--reference', 'return-1']), 1, /INSUFFICIENT_PREFUND/);
  assert.equal((await transfersOf('return-1')).length, 0);
  assert.equal((await auditFor(service.db, 'prefund:DEMO_SOURCE_2:PARTNER_KE:KES')).length, 0, 'a refused debit leaves no audit row');
  const debit = await adminJson(move('debit', 'DEMO_SOURCE_2', 'PARTNER_KE', '4998965.00', ['--reference', 'return-1', '--actor', 'ops-bob']));
  assert.deepEqual([debit['balance'], debit['reserved'], debit['availableBalance']], ['1035.00', '1035.00', '0.00']);
  assert.deepEqual(await transfersOf('return-1'), [{ reason: 'OPERATOR_PREFUND_DEBIT', amount: '499896500', currency: 'KES' }]);
  const [audit] = await auditFor(service.db, 'prefund:DEMO_SOURCE_2:PARTNER_KE:KES');
  assert.deepEqual([audit!.actor, audit!.action], ['ops-bob', 'prefund.debit']);
  assert.equal((audit!.before as { balance: { availableBalance: string } }).balance.availableBalance, '4998965.00');
  assert.equal((audit!.after as { balance: { availableBalance: string } }).balance.availableBalance, '0.00');
  await refused(move('debit', 'DEMO_SOURCE_2', 'PARTNER_KE', '0.01'), 1, /INSUFFICIENT_PREFUND/);
  await assertLedgerBalanced();
});

test('refusals: exit 1 with the reason (exit 2 for a usage error), nothing moved, nothing audited', async () => {
  const { rows: [count] } = await service.db.query<{ n: string }>("SELECT count(*)::text AS n FROM ledger_transfers WHERE reason LIKE 'OPERATOR_PREFUND_%'");
  await refused(move('credit', 'NOBODY', 'PARTNER_KE', '1.00'), 1, /UNKNOWN_SOURCE_MEMBER/);
  await refused(move('credit', 'PARTNER_MX', 'PARTNER_KE', '1.00'), 1, /UNKNOWN_SOURCE_MEMBER/);
  await refused(move('credit', 'DEMO_SOURCE_1', 'NOBODY', '1.00'), 1, /UNKNOWN_DESTINATION_MEMBER/);
  await refused(['prefund', 'credit', '--source', 'DEMO_SOURCE_1', '--destination', 'PARTNER_KE', '--currency', 'USD', '--amount', '1.00', '--reason', 'x'], 1, /UNSUPPORTED_CURRENCY/);
  for (const amount of ['1000.001', '-5', '0', '0.00', 'abc', '1e3', '1,000.00']) await refused(move('credit', 'DEMO_SOURCE_1', 'PARTNER_KE', amount), 1, /INVALID_AMOUNT/);
  await refused(move('credit', 'DEMO_SOURCE_1', 'PARTNER_KE', '1.00', ['--reference', 'has space']), 1, /INVALID_REFERENCE/);
  await refused(['prefund', 'credit', '--source', 'DEMO_SOURCE_1', '--destination', 'PARTNER_KE', '--currency', 'KES', '--amount', '1.00', '--reason', '   '], 1, /INVALID_REASON/);
  await refused(['prefund', 'credit', '--source', 'DEMO_SOURCE_1', '--destination', 'PARTNER_KE', '--currency', 'KES', '--amount', '1.00'], 2, /--reason is required/);
  await refused(['prefund', 'debit', '--source', 'DEMO_SOURCE_1', '--destination', 'PARTNER_KE', '--currency', 'KES', '--reason', 'x'], 2, /--amount is required/);
  await refused(['prefund', 'show', '--source', 'DEMO_SOURCE_1', '--destination', 'NOBODY'], 1, /UNKNOWN_DESTINATION_MEMBER/);
  await refused(['prefund', 'show', '--destination', 'PARTNER_KE'], 2, /--source is required/);
  const { rows: [after] } = await service.db.query<{ n: string }>("SELECT count(*)::text AS n FROM ledger_transfers WHERE reason LIKE 'OPERATOR_PREFUND_%'");
  assert.equal(after!.n, count!.n);
  assert.equal((await auditFor(service.db, 'prefund:DEMO_SOURCE_1:PARTNER_KE:KES')).length, 1, 'only the earlier credit');
});

test('the same reference run twice at once moves money once; the other run says it was applied', async () => {
  const args = move('credit', 'DEMO_SOURCE_1', 'PARTNER_KE', '10.00', ['--reference', 'wire-concurrent']);
  const runs = await Promise.all([adminJson(args), adminJson(args)]);
  assert.deepEqual(runs.map((r) => r['replayed']).sort(), [false, true]);
  assert.equal(runs[0]!['transferId'], runs[1]!['transferId']);
  assert.equal((await transfersOf('wire-concurrent')).length, 1);
  await assertLedgerBalanced();
});
