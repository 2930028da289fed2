// Production mode moves money through a real partner connection: the service (MODE=production)
// reaches the reference partner (a separate process) over the HTTP rail, and the partner's signed
// reports come back through the intake. The database is first seeded in sandbox mode (members,
// providers, prefund), then the demo clients are replaced, as production requires.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedForProduction, startTestService, type TestService } from '../support/service.ts';
import { json, token } from '../support/http.ts';
import { eventually, payoutApi, payoutBody } from '../support/payouts.ts';
import { spawnReferencePartner, type ReferencePartner } from '../support/reference-partner.ts';
import { createPartnersAdmin } from '../../src/partners/admin.ts';

let service: TestService;
let partner: ReferencePartner;
let api: ReturnType<typeof payoutApi>;

before(async () => {
  const { env, credentials } = await seedForProduction(['payouts']);
  service = await startTestService({ ...env, WORKERS: '2', PARTNER_CONNECTIONS_REFRESH_MS: '200' });
  partner = await spawnReferencePartner({ serviceUrl: service.url });
  const admin = createPartnersAdmin({ db: service.db, actor: 'test' });
  assert.ok((await admin.addKey('PARTNER_MX', partner.keyId, partner.publicKey)).ok);
  assert.ok((await admin.setConnection('PARTNER_MX', partner.url, true)).ok);
  await new Promise((r) => setTimeout(r, 500)); // the connection is read within PARTNER_CONNECTIONS_REFRESH_MS
  api = payoutApi(service.url, await token(service.url, { ...credentials, scope: 'payouts' }));
});
after(async () => {
  await partner?.stop();
  await service?.stop();
});

const partnerRow = async (payoutId: string) => (await partner.books()).payouts.find((p) => p.payoutId === payoutId);

test('a bank payout is paid by the partner, once, for the exact amount', async () => {
  const id = String((await api.created(payoutBody('MX_SPEI', { payoutAmt: 1234.56 })))['payoutId']);
  const processed = await api.process(id);
  assert.equal(processed.status, 200);
  assert.equal((await json(processed))['payoutStatus'], 'PRCD');
  const row = await partnerRow(id);
  assert.deepEqual([row?.status, row?.amount, row?.currency, row?.submissions], ['PAID', '1234.56', 'MXN', 1]);
});

test('a cash pickup payout waits PNDG until the partner reports the pickup', async () => {
  const id = String((await api.created(payoutBody('MX_CASH', { payoutAmt: 300 })))['payoutId']);
  assert.equal((await json(await api.process(id)))['payoutStatus'], 'PNDG');
  assert.equal((await partner.pickUp(id)).status, 200);
  const record = await eventually(() => api.record(id), (r) => r['payoutStatus'] === 'PRCD');
  assert.equal(record['payoutStatus'], 'PRCD');
  assert.equal(record['cashoutStatus'], 'PAID');
});

test('paid then returned, with the reports sent out of order and twice: the payout ends RVSD', async () => {
  const id = String((await api.created(payoutBody('MX_SPEI', { payoutAmt: 80 })))['payoutId']);
  await partner.behave({ outcome: 'PAY_THEN_RETURN', reportAfterMs: 100, reports: 'OUT_OF_ORDER' }, id);
  assert.equal((await json(await api.process(id)))['payoutStatus'], 'PRCD');
  await eventually(async () => (await partner.books()).reports.filter((r) => r.payoutId === id && r.state === 'SENT').length, (n) => n === 2);
  const record = await eventually(() => api.record(id), (r) => r['payoutStatus'] === 'RVSD');
  assert.equal(record['payoutStatus'], 'RVSD');
  const { rows } = await service.db.query<{ status: string; applied: boolean }>('SELECT status, applied FROM partner_reports WHERE payout_id = $1 ORDER BY sequence', [id]);
  assert.deepEqual(rows, [{ status: 'PAID', applied: false }, { status: 'RETURNED', applied: true }]);
});

test('a partner that pays later: PNDG, then PRCD on its report', async () => {
  const id = String((await api.created(payoutBody('MX_SPEI', { payoutAmt: 90 })))['payoutId']);
  await partner.behave({ outcome: 'PAY_LATER', reportAfterMs: 200, reports: 'DUPLICATE' }, id);
  assert.equal((await json(await api.process(id)))['payoutStatus'], 'PNDG');
  await eventually(() => api.record(id), (r) => r['payoutStatus'] === 'PRCD');
  const { rows } = await service.db.query('SELECT 1 FROM partner_reports WHERE payout_id = $1', [id]);
  assert.equal(rows.length, 1, 'the duplicate is recorded once');
});

test('a report with a bad signature is refused and the partner gives up on it; the payout stays PNDG', async () => {
  const id = String((await api.created(payoutBody('MX_SPEI', { payoutAmt: 70 })))['payoutId']);
  await partner.behave({ outcome: 'PAY_LATER', reportAfterMs: 100, reports: 'BAD_SIGNATURE' }, id);
  assert.equal((await json(await api.process(id)))['payoutStatus'], 'PNDG');
  await eventually(async () => (await partner.books()).reports.find((r) => r.payoutId === id)?.state, (s) => s === 'GAVE_UP');
  assert.equal((await api.record(id))['payoutStatus'], 'PNDG');
});

test('a disabled connection is no rail: processing sends nothing to the partner', async () => {
  const admin = createPartnersAdmin({ db: service.db, actor: 'test' });
  assert.ok((await admin.setConnection('PARTNER_MX', partner.url, false)).ok);
  await new Promise((r) => setTimeout(r, 500));
  const id = String((await api.created(payoutBody('MX_SPEI', { payoutAmt: 60 })))['payoutId']);
  const response = await api.process(id);
  assert.notEqual((await json(response))['payoutStatus'], 'PRCD');
  assert.equal(await partnerRow(id), undefined);
  assert.ok((await admin.setConnection('PARTNER_MX', partner.url, true)).ok);
});
