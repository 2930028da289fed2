// GET /v2/destination-members and the sandbox prefund control.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO_2, bearer, json, token, expectError } from '../support/http.ts';
import { checkLedger } from '../../src/ledger/service.ts';

type Record_ = { memberId: string; countryCode: string; supportedCcyList: string[]; prefundBalance: Array<{ currency: string; balance: number; availableBalance: number }> };

let service: TestService;
let member: string;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  member = await token(service.url, { scope: 'member' });
});
after(async () => {
  await service.stop();
});

const prefund = (body: unknown, accessToken = member) =>
  fetch(`${service.url}/v2/sandbox/prefund`, {
    method: 'POST',
    headers: { ...bearer(accessToken), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });


async function mexico(accessToken = member): Promise<Record_> {
  const list = await json<Record_[]>(await fetch(`${service.url}/v2/destination-members`, { headers: bearer(accessToken) }));
  return list.find((m) => m.memberId === 'PARTNER_MX')!;
}

describe('destination members', () => {
  test('every member with an active corridor, with the seeded prefund; the suspended corridor is left out', async () => {
    const response = await fetch(`${service.url}/v2/destination-members`, { headers: bearer(member) });
    assert.equal(response.status, 200);
    const list = await json<Record_[]>(response);
    assert.deepEqual(list.map((m) => m.countryCode).sort(), ['BR', 'IN', 'KE', 'MX', 'NG', 'PH']);
    for (const m of list) {
      assert.equal(m.prefundBalance.length, m.supportedCcyList.length);
      for (const b of m.prefundBalance) {
        assert.equal(b.balance, 5000000);
        assert.equal(b.availableBalance, 5000000);
      }
    }
  });

  test('the member scope is needed', async () => {
    const payouts = await token(service.url, { scope: 'payouts' });
    await expectError(await fetch(`${service.url}/v2/destination-members`, { headers: bearer(payouts) }), 403, 'INSUFFICIENT_SCOPE');
  });
});

describe('sandbox prefund', () => {
  test('a credit and a debit move the balance exactly, and only the caller’s', async () => {
    const credit = await prefund({ destinationMemberId: 'PARTNER_MX', currency: 'MXN', amount: 1000.05 });
    assert.equal(credit.status, 200);
    const record = await json<Record_>(credit);
    assert.equal(record.memberId, 'PARTNER_MX');
    assert.deepEqual(record.prefundBalance, [{ currency: 'MXN', balance: 5001000.05, availableBalance: 5001000.05 }]);
    const debit = await json<Record_>(await prefund({ destinationMemberId: 'PARTNER_MX', currency: 'MXN', amount: -0.05 }));
    assert.equal(debit.prefundBalance[0]!.balance, 5001000);
    const other = await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret, scope: 'member' });
    assert.equal((await mexico(other)).prefundBalance[0]!.balance, 5000000);
    assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
  });

  test('a debit below zero is 422 INSUFFICIENT_PREFUND and changes nothing', async () => {
    const before = await mexico();
    await expectError(await prefund({ destinationMemberId: 'PARTNER_MX', currency: 'MXN', amount: -99999999 }), 422, 'INSUFFICIENT_PREFUND');
    assert.deepEqual(await mexico(), before);
  });

  test('refusals: unknown member, currency it does not hold, decimals, zero, unknown property', async () => {
    await expectError(await prefund({ destinationMemberId: 'PARTNER_XX', currency: 'MXN', amount: 1 }), 422, 'UNKNOWN_DESTINATION_MEMBER');
    await expectError(await prefund({ destinationMemberId: 'DEMO_SOURCE_2', currency: 'USD', amount: 1 }), 422, 'UNKNOWN_DESTINATION_MEMBER');
    await expectError(await prefund({ destinationMemberId: 'PARTNER_MX', currency: 'BRL', amount: 1 }), 422, 'UNSUPPORTED_CURRENCY');
    await expectError(await prefund({ destinationMemberId: 'PARTNER_MX', currency: 'MXN', amount: 1.001 }), 400, 'VALIDATION_ERROR', /^amount: /);
    await expectError(await prefund({ destinationMemberId: 'PARTNER_MX', currency: 'MXN', amount: 0 }), 400, 'VALIDATION_ERROR', /^amount: /);
    await expectError(await prefund({ destinationMemberId: 'PARTNER_MX', currency: 'MXN', amount: '5' }), 400, 'VALIDATION_ERROR', /^amount: must be number/);
    await expectError(await prefund({ destinationMemberId: 'PARTNER_MX', currency: 'MXN', amount: 5, note: 'x' }), 400, 'VALIDATION_ERROR', /^note: /);
  });
});
