// npm run admin -- providers ...: the payout provider catalogue managed as data, each change
// validated and audited, and offered by the running service within its catalogue cache time.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startTestService, type TestService } from '../support/service.ts';
import { adminCli } from '../support/admin.ts';
import { bearer, json, token } from '../support/http.ts';
import { eventually, payoutApi, payoutBody } from '../support/payouts.ts';
import { auditFor } from '../../src/audit/repo.ts';
import { readProviderDocument } from '../../src/providers/document.ts';
import { SANDBOX_PROVIDERS } from '../../src/providers/catalogue.ts';
import { CATALOGUE_TTL_MS } from '../../src/providers/service.ts';

let service: TestService;
let accessToken: string;
const { admin, adminJson, refused } = adminCli(() => service.dataDir);
/** The cache time, with a generous margin for a busy machine. */
const VISIBLE_WITHIN_MS = CATALOGUE_TTL_MS + 10_000;

const document = (overrides: Record<string, unknown> = {}) => ({
  payoutProviderId: 'KE_OPS_WALLET',
  name: 'Ops wallet (Kenya)',
  countryCode: 'KE',
  destinationMemberId: 'PARTNER_KE',
  currencies: ['KES'],
  payoutMethods: ['WALLET'],
  segments: ['C2C'],
  limits: [{ currency: 'KES', minimumLimit: '10.00', maximumLimit: '70000.00' }],
  fees: [{ currency: 'KES', fixedFee: '12.50', percentageFee: '0.75' }],
  fields: [{
    name: 'beneficiary.phone', type: 'string', required: true, pattern: '^\\+254[0-9]{9}$',
    description: 'Kenyan mobile number in E.164 form', example: '+254712345678',
  }],
  ...overrides,
});

async function file(content: unknown): Promise<string> {
  const name = path.join(service.dataDir, `provider-${Math.random().toString(36).slice(2)}.json`);
  await fs.writeFile(name, typeof content === 'string' ? content : JSON.stringify(content));
  return name;
}

const getProvider = (id: string) => fetch(`${service.url}/v2/payout-providers/${id}`, { headers: bearer(accessToken) });

before(async () => {
  service = await startTestService({ WORKERS: '0' });
  accessToken = await token(service.url);
});
after(async () => {
  await service.stop();
});

test('every sandbox catalogue provider passes the document checks (the checks refuse nothing real)', () => {
  for (const provider of SANDBOX_PROVIDERS) assert.deepEqual(readProviderDocument(structuredClone(provider)), { ok: true, provider });
});

test('set creates a provider, audited; the API offers it within the cache time; payouts can use it', async () => {
  const created = await adminJson(['providers', 'set', '--file', await file(document()), '--actor', 'ops-alice']);
  assert.equal(created['created'], true);
  assert.equal(created['active'], true);
  const response = await eventually(() => getProvider('KE_OPS_WALLET'), (r) => r.status === 200, VISIBLE_WITHIN_MS);
  assert.equal(response.status, 200);
  const record = await json(response);
  assert.deepEqual(record['limits'], [{ currency: 'KES', minimumLimit: 10, maximumLimit: 70000 }]);
  assert.deepEqual(record['fees'], [{ currency: 'KES', fixedFee: 12.5, percentageFee: 0.75 }]);
  const payout = await payoutApi(service.url, accessToken).created(payoutBody('KE_MPESA', { payoutProviderId: 'KE_OPS_WALLET', payoutMethod: 'WALLET', payoutAmt: 1000 }));
  assert.equal(payout['transferFee'], 20);

  const audit = await auditFor(service.db, 'provider:KE_OPS_WALLET');
  assert.deepEqual(audit.map((a) => [a.actor, a.action]), [['ops-alice', 'providers.set']]);
  assert.equal(audit[0]!.before, null);
  assert.equal((audit[0]!.after as Record<string, unknown>)['name'], 'Ops wallet (Kenya)');
});

test('set replaces a definition (before and after audited), show prints the document set, list shows it', async () => {
  await adminJson(['providers', 'set', '--file', await file(document({ limits: [{ currency: 'KES', minimumLimit: '10.00', maximumLimit: '90000.00' }] })), '--actor', 'ops-bob']);
  const shown = await adminJson(['providers', 'show', 'KE_OPS_WALLET']);
  assert.deepEqual(shown['limits'], [{ currency: 'KES', minimumLimit: '10.00', maximumLimit: '90000.00' }]);
  assert.equal(shown['active'], true);
  const limits = await eventually(
    async () => json<Array<{ maximumLimit: number }>>(await fetch(`${service.url}/v2/payout-limits?payoutProviderId=KE_OPS_WALLET`, { headers: bearer(accessToken) })),
    (rows) => rows[0]?.maximumLimit === 90000,
    VISIBLE_WITHIN_MS,
  );
  assert.equal(limits[0]!.maximumLimit, 90000);
  const audit = await auditFor(service.db, 'provider:KE_OPS_WALLET');
  const last = audit.at(-1)!;
  assert.deepEqual([last.actor, last.action], ['ops-bob', 'providers.set']);
  assert.deepEqual((last.before as { limits: unknown }).limits, [{ currency: 'KES', minimumLimit: '10.00', maximumLimit: '70000.00' }]);
  assert.deepEqual((last.after as { limits: unknown }).limits, [{ currency: 'KES', minimumLimit: '10.00', maximumLimit: '90000.00' }]);

  const list = await adminJson<Array<Record<string, unknown>>>(['providers', 'list']);
  assert.ok(list.some((p) => p['payoutProviderId'] === 'KE_OPS_WALLET' && p['active'] === true));
  assert.ok(list.some((p) => p['payoutProviderId'] === 'MX_SPEI'));
  const text = await admin(['providers', 'list']);
  assert.match(text.stdout, /^payoutProviderId\s+name/);
});

test('disable withdraws a provider from the API within the cache time, enable offers it again; both audited', async () => {
  const disabled = await adminJson(['providers', 'disable', 'KE_OPS_WALLET', '--actor', 'ops-carol']);
  assert.equal(disabled['active'], false);
  assert.equal((await eventually(() => getProvider('KE_OPS_WALLET'), (r) => r.status === 404, VISIBLE_WITHIN_MS)).status, 404);
  const refusedPayout = await payoutApi(service.url, accessToken).create(payoutBody('KE_MPESA', { payoutProviderId: 'KE_OPS_WALLET', payoutMethod: 'WALLET' }));
  assert.notEqual(refusedPayout.status, 201);
  await refused(['providers', 'disable', 'KE_OPS_WALLET'], 1, /ALREADY_DISABLED/);
  // a replaced definition keeps the provider disabled
  const replaced = await adminJson(['providers', 'set', '--file', await file(document({ name: 'Ops wallet' }))]);
  assert.equal(replaced['active'], false);

  const enabled = await adminJson(['providers', 'enable', 'KE_OPS_WALLET', '--actor', 'ops-carol']);
  assert.equal(enabled['active'], true);
  assert.equal((await eventually(() => getProvider('KE_OPS_WALLET'), (r) => r.status === 200, VISIBLE_WITHIN_MS)).status, 200);
  await refused(['providers', 'enable', 'KE_OPS_WALLET'], 1, /ALREADY_ENABLED/);
  await refused(['providers', 'enable', 'NO_SUCH'], 1, /PROVIDER_NOT_FOUND/);
  await refused(['providers', 'show', 'NO_SUCH'], 1, /PROVIDER_NOT_FOUND/);
  await refused(['providers', 'disable'], 2, /providers disable needs a PROVIDER_ID/);

  const actions = (await auditFor(service.db, 'provider:KE_OPS_WALLET')).filter((a) => a.actor === 'ops-carol');
  assert.deepEqual(actions.map((a) => [a.action, (a.before as { active: boolean }).active, (a.after as { active: boolean }).active]), [
    ['providers.disable', true, false],
    ['providers.enable', false, true],
  ]);
});

test('set refuses a bad document with exit 1 and its reason, and changes nothing', async () => {
  const auditRows = (await auditFor(service.db, 'provider:KE_OPS_WALLET')).length;
  const cases: Array<[unknown, RegExp]> = [
    ['{not json', /INVALID: .* is not JSON/],
    [document({ colour: 'blue' }), /INVALID: .*colour: is not a known property/],
    [document({ payoutMethods: ['PIGEON'] }), /INVALID: .*payoutMethods\[0\]: must be one of/],
    [document({ destinationMemberId: 'NOBODY' }), /UNKNOWN_DESTINATION_MEMBER/],
    [document({ destinationMemberId: 'DEMO_SOURCE_1' }), /UNKNOWN_DESTINATION_MEMBER/],
    [document({ currencies: ['XXX'] }), /UNKNOWN_CURRENCY/],
    [document({ currencies: ['MXN'], limits: [{ currency: 'MXN', minimumLimit: '1', maximumLimit: '2' }], fees: [{ currency: 'MXN', fixedFee: '0', percentageFee: '0' }] }), /UNSUPPORTED_CURRENCY/],
    [document({ limits: [{ currency: 'KES', minimumLimit: '10.001', maximumLimit: '20.00' }] }), /INVALID_AMOUNT/],
    [document({ limits: [{ currency: 'KES', minimumLimit: 10, maximumLimit: 20 }] }), /INVALID: .*minimumLimit: must be string/],
    [document({ limits: [{ currency: 'KES', minimumLimit: '1e3', maximumLimit: '20.00' }] }), /INVALID: .*minimumLimit: must match pattern/],
    [document({ fees: [{ currency: 'KES', fixedFee: '-1.00', percentageFee: '0' }] }), /INVALID: .*fixedFee: must match pattern/],
    [document({ limits: [{ currency: 'KES', minimumLimit: '500.00', maximumLimit: '20.00' }] }), /LIMIT_MIN_ABOVE_MAX/],
    [document({ limits: [] }), /INVALID: .*limits: must NOT have fewer than 1 items/],
    [document({ fees: [{ currency: 'USD', fixedFee: '1.00', percentageFee: '0' }] }), /INVALID_FEES/],
    [document({ fees: [{ currency: 'KES', fixedFee: '1.00', percentageFee: '100.5' }] }), /INVALID_FEES/],
    [document({ fields: [{ name: 'beneficiary.phone', type: 'string', required: true, pattern: '([', description: 'x', example: 'x' }] }), /INVALID_FIELD_RULE: .*does not compile/],
    [document({ fields: [{ name: 'beneficiary.phone', type: 'string', required: true, pattern: '^[0-9]+$', description: 'x', example: 'abc' }] }), /INVALID_FIELD_RULE: .*breaks its own rule/],
    [document({ fields: [{ name: 'beneficiary.phone', type: 'string', required: true, minLength: 5, maxLength: 2, description: 'x', example: 'abc' }] }), /INVALID_FIELD_RULE: .*minLength is above maxLength/],
  ];
  for (const [content, message] of cases) await refused(['providers', 'set', '--file', await file(content)], 1, message);
  await refused(['providers', 'set'], 2, /--file is required/);
  await refused(['providers', 'set', '--file', '/nonexistent/provider.json'], 2, /is not a readable file/);
  assert.equal((await auditFor(service.db, 'provider:KE_OPS_WALLET')).length, auditRows, 'refused changes leave no audit row');
  const shown = await adminJson(['providers', 'show', 'KE_OPS_WALLET']);
  assert.deepEqual(shown['currencies'], ['KES']);
});
