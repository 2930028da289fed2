// A currency without minor digits (JPY): amounts with decimals are refused, and a percentage
// fee rounds half-up to whole yen. The provider is added as data, as any new provider would be.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { bearer, expectError, json, token } from '../support/http.ts';
import { payoutApi } from '../support/payouts.ts';
import { upsertProvider } from '../../src/providers/repo.ts';

let service: TestService;
let api: ReturnType<typeof payoutApi>;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  await service.db.query(`INSERT INTO members (member_id, name, kind, country_code, currencies) VALUES ('PARTNER_JP', 'Yen Payouts', 'DESTINATION', 'JP', '{JPY}')`);
  await service.db.query(`INSERT INTO corridors (source_member_id, destination_member_id, destination_ccy, active, max_settlement_amt) VALUES ('DEMO_SOURCE_1', 'PARTNER_JP', 'JPY', true, 100000)`);
  await upsertProvider(service.db, {
    payoutProviderId: 'JP_ZENGIN', name: 'Zengin transfer (Japan)', countryCode: 'JP', destinationMemberId: 'PARTNER_JP',
    currencies: ['JPY'], payoutMethods: ['BANK_ACCOUNT'], segments: ['C2C'],
    limits: [{ currency: 'JPY', minimumLimit: '100', maximumLimit: '1000000' }],
    fees: [{ currency: 'JPY', fixedFee: '100', percentageFee: '1.5' }],
    fields: [{ name: 'beneficiary.accountNumber', type: 'string', required: true, pattern: '^[0-9]{7}$', description: 'Account number, 7 digits', example: '1234567' }],
  });
  const member = await token(service.url, { scope: 'member' });
  const topUp = await fetch(`${service.url}/v2/sandbox/prefund`, {
    method: 'POST', headers: { ...bearer(member), 'content-type': 'application/json' },
    body: JSON.stringify({ destinationMemberId: 'PARTNER_JP', currency: 'JPY', amount: 500000 }),
  });
  assert.equal(topUp.status, 200);
  api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
});
after(async () => {
  await service.stop();
});

const body = (payoutAmt: number) => ({
  sourceMemberPayoutId: `jp-${payoutAmt}-${Math.random()}`, payoutProviderId: 'JP_ZENGIN', destinationCcy: 'JPY', payoutAmt,
  sender: { firstName: 'John', lastName: 'Smith' }, beneficiary: { firstName: 'Yuki', lastName: 'Tanaka', accountNumber: '1234567' },
});

test('fees on a zero-decimal currency round half-up to whole units', async () => {
  const cases: Array<[number, number]> = [[1050, 116], [1030, 115], [1033, 115], [100, 102], [1100, 117]];
  for (const [amount, fee] of cases) {
    const created = await json(await api.create(body(amount)));
    assert.equal(created['transferFee'], fee, `fee on ${amount} JPY`); // 100 + 1.5 % (15.75 -> 16, 15.45 -> 15, 15.495 -> 15, 1.5 -> 2, 16.5 -> 17)
  }
});

test('an amount with decimals in JPY is 400 naming payoutAmt', async () => {
  await expectError(await api.create(body(1000.5)), 400, 'VALIDATION_ERROR', /^payoutAmt: /);
});
