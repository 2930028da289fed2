// POST /v2/payouts: the answer, the reservation, idempotency, and every refusal with its code.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO_2, bearer, json, token, expectError } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';

let service: TestService;
let api: ReturnType<typeof payoutApi>;
let member: string;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
  member = await token(service.url, { scope: 'member' });
});
after(async () => {
  await service.stop();
});

async function available(accessToken = member, memberId = 'PARTNER_MX'): Promise<number> {
  const list = await json<Array<{ memberId: string; prefundBalance: Array<{ availableBalance: number }> }>>(
    await fetch(`${service.url}/v2/destination-members`, { headers: bearer(accessToken) }),
  );
  return list.find((m) => m.memberId === memberId)!.prefundBalance[0]!.availableBalance;
}


describe('a created payout', () => {
  test('answers 201 with Location, links, the fee and the expiry, and reserves amount plus fee', async () => {
    const before = await available();
    const body = payoutBody('MX_SPEI', {
      payoutAmt: 1500.5,
      beneficiary: { firstName: 'Maria', middleName: 'José', lastName: 'Lopez', lastName2: 'Garcia', accountNumber: '032180000118359719' },
    });
    const response = await api.create(body);
    assert.equal(response.status, 201);
    const created = await json(response);
    const id = String(created['payoutId']);
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(response.headers.get('location'), `/v2/payouts/${id}`);
    assert.equal(response.headers.get('idempotent-replayed'), null);
    assert.deepEqual(created['links'], { process: `/v2/payouts/${id}/process`, status: `/v2/payouts/${id}/status`, details: `/v2/payouts/${id}` });
    assert.equal(created['payoutStatus'], 'ACCP');
    assert.equal(created['payoutAmt'], 1500.5);
    assert.equal(created['transferFee'], 22.5); // 15.00 + 0.5 % of 1500.50 = 7.5025 -> 7.50
    assert.equal(created['beneficiaryName'], 'Maria José Lopez Garcia');
    const expiry = Date.parse(String(created['expiryTime'])) - Date.now();
    assert.ok(expiry > 23.9 * 3_600_000 && expiry <= 24 * 3_600_000, `expiry in ${expiry} ms`);
    assert.equal(await available(), before - 1523);

    const record = await api.record(id);
    assert.equal((record['beneficiary'] as Record<string, unknown>)['entityType'], 'INDIVIDUAL');
    assert.equal(record['payoutMethod'], 'BANK_ACCOUNT');
    assert.equal(record['segment'], 'C2C');
    assert.equal(record['payoutCancellationStatus'], undefined);
    assert.equal(record['completionTime'], undefined);
    const { rows } = await service.db.query('SELECT type, sequence, data FROM events WHERE resource_id = $1', [id]);
    assert.deepEqual(rows, [{ type: 'payout.status_changed', sequence: 1, data: { payoutStatus: 'ACCP', payoutId: id, sourceMemberPayoutId: body['sourceMemberPayoutId'], previousStatus: null } }]);
    const expiryTime = new Date(String(created['expiryTime']));
    const queued = await service.db.query('SELECT expiry_time AS "expiryTime" FROM payout_expiry_queue WHERE payout_id = $1', [id]);
    assert.deepEqual(queued.rows, [{ expiryTime }], 'the expiry sweep will look at it at its expiry time');
  });

  test('a companyName makes the party a BUSINESS', async () => {
    const created = await api.created(payoutBody('MX_SPEI', { segment: 'B2B', sender: { firstName: 'A', lastName: 'B', companyName: 'Acme Inc' } }));
    const record = await api.record(String(created['payoutId']));
    assert.equal((record['sender'] as Record<string, unknown>)['entityType'], 'BUSINESS');
  });

  test('fees round half-up to the minor unit', async () => {
    const cases: Array<[number, number]> = [[1000.05, 20], [1001, 20.01], [10, 15.05], [333.3, 16.67]];
    for (const [amount, fee] of cases) {
      const created = await api.created(payoutBody('MX_SPEI', { payoutAmt: amount }));
      assert.equal(created['transferFee'], fee, `fee on ${amount}`);
    }
  });

  test('a percentage fee with more decimals than integer digits (IN_IMPS: 25.00 INR + 0.25%)', async () => {
    const created = await api.created(payoutBody('IN_IMPS', { payoutAmt: 1000 }));
    assert.equal(created['transferFee'], 27.5);
  });
});

describe('idempotency by sourceMemberPayoutId', () => {
  test('the same request again replays the original answer and reserves nothing more', async () => {
    const body = payoutBody();
    const first = await api.created(body);
    const after1 = await available();
    const again = await api.create({ ...body, beneficiary: { ...(body['beneficiary'] as object) } });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await json(again), first);
    // key order does not matter
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    assert.equal((await api.create(reordered)).headers.get('idempotent-replayed'), 'true');
    assert.equal(await available(), after1);
  });

  test('the replay answers the original even after the payout moved on', async () => {
    const body = payoutBody();
    const first = await api.created(body);
    await api.process(String(first['payoutId']));
    assert.deepEqual(await json(await api.create(body)), first);
  });

  test('a different request under a used id is 409 DUPLICATE_SOURCE_MEMBER_PAYOUT_ID and changes nothing', async () => {
    const body = payoutBody();
    await api.created(body);
    const before = await available();
    await expectError(await api.create({ ...body, payoutAmt: 1001 }), 409, 'DUPLICATE_SOURCE_MEMBER_PAYOUT_ID', /^sourceMemberPayoutId: /);
    assert.equal(await available(), before);
  });

  test('another member may use the same sourceMemberPayoutId', async () => {
    const body = payoutBody();
    await api.created(body);
    const other = payoutApi(service.url, await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret, scope: 'payouts' }));
    assert.equal((await other.create(body)).status, 201);
  });
});

describe('schema refusals (400 VALIDATION_ERROR naming the field)', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['missing sender', { sender: undefined }, /^sender: is required$/],
    ['empty sender.firstName', { sender: { firstName: '', lastName: 'X' } }, /^sender\.firstName: /],
    ['unknown property', { colour: 'red' }, /^colour: is not a known property$/],
    ['unknown beneficiary property', { beneficiary: { firstName: 'a', lastName: 'b', accountNumber: '032180000118359719', iban: 'x' } }, /^beneficiary\.iban: is not a known property$/],
    ['payoutAmt as a string', { payoutAmt: '100' }, /^payoutAmt: must be number$/],
    ['payoutAmt zero', { payoutAmt: 0 }, /^payoutAmt: /],
    ['payoutAmt negative', { payoutAmt: -5 }, /^payoutAmt: /],
    ['payoutAmt with more decimals than MXN has', { payoutAmt: 10.005 }, /^payoutAmt: /],
    ['sourceMemberPayoutId over 50', { sourceMemberPayoutId: 'x'.repeat(51) }, /^sourceMemberPayoutId: /],
    ['sourceMemberPayoutId empty', { sourceMemberPayoutId: '' }, /^sourceMemberPayoutId: /],
    ['destinationCcy lower case', { destinationCcy: 'mxn' }, /^destinationCcy: /],
    ['payoutProviderId with a dot', { payoutProviderId: 'MX.SPEI' }, /^payoutProviderId: /],
    ['payoutMethod out of enum', { payoutMethod: 'CHEQUE' }, /^payoutMethod: must be one of BANK_ACCOUNT, CASH_PICKUP, WALLET$/],
    ['segment out of enum', { segment: 'P2P' }, /^segment: /],
    ['sender e-mail', { sender: { firstName: 'a', lastName: 'b', email: 'not-an-email' } }, /^sender\.email: /],
    ['beneficiary nationality', { beneficiary: { firstName: 'a', lastName: 'b', accountNumber: '032180000118359719', nationality: 'M3X' } }, /^beneficiary\.nationality: /],
    ['sender countryOfBirth', { sender: { firstName: 'a', lastName: 'b', countryOfBirth: 'MX' } }, /^sender\.countryOfBirth: /],
    ['sender gender', { sender: { firstName: 'a', lastName: 'b', gender: 'X' } }, /^sender\.gender: /],
    ['date of birth not a date', { sender: { firstName: 'a', lastName: 'b', dateOfBirth: '17/05/1980' } }, /^sender\.dateOfBirth: /],
    ['purpose code not in the list', { complianceInfo: { purpose: 'HOLIDAY' } }, /^complianceInfo\.purpose: /],
    ['pixKey over 100', { beneficiary: { firstName: 'a', lastName: 'b', accountNumber: '032180000118359719', pixKey: 'k'.repeat(101) } }, /^beneficiary\.pixKey: /],
    ['provider rule: CLABE check digit', { beneficiary: { firstName: 'a', lastName: 'b', accountNumber: '032180000118359718' } }, /^beneficiary\.accountNumber: .*check digit/],
    ['provider rule: required field', { beneficiary: { firstName: 'a', lastName: 'b' } }, /^beneficiary\.accountNumber: is required/],
    ['segment the provider does not serve', { payoutProviderId: 'MX_CASH', segment: 'B2B' }, /^segment: /],
  ];
  for (const [name, change, detail] of cases) {
    test(name, async () => {
      const before = await available();
      const body = { ...payoutBody(String(change['payoutProviderId'] ?? 'MX_SPEI')), ...change };
      for (const [key, value] of Object.entries(change)) if (value === undefined) delete body[key];
      await expectError(await api.create(body), 400, 'VALIDATION_ERROR', detail);
      assert.equal(await available(), before);
    });
  }
});

describe('business refusals (422)', () => {
  test('an unknown provider', async () => {
    await expectError(await api.create(payoutBody('MX_SPEI', { payoutProviderId: 'XX_NOPE' })), 422, 'UNKNOWN_PAYOUT_PROVIDER', /^payoutProviderId: /);
  });
  test('a provider behind a suspended corridor', async () => {
    const body = payoutBody('MX_SPEI', { payoutProviderId: 'GH_MOMO', destinationCcy: 'GHS', beneficiary: { firstName: 'Kofi', lastName: 'Mensah', phone: '+233241234567' } });
    await expectError(await api.create(body), 422, 'UNKNOWN_PAYOUT_PROVIDER', /corridor/);
  });
  test('a currency the provider does not pay out in', async () => {
    await expectError(await api.create(payoutBody('MX_SPEI', { destinationCcy: 'USD' })), 422, 'UNSUPPORTED_CURRENCY', /^destinationCcy: /);
  });
  test('a method the provider does not offer', async () => {
    await expectError(await api.create(payoutBody('MX_SPEI', { payoutMethod: 'WALLET' })), 422, 'UNSUPPORTED_PAYOUT_METHOD', /^payoutMethod: /);
  });
  test('below the minimum and above the maximum', async () => {
    await expectError(await api.create(payoutBody('MX_SPEI', { payoutAmt: 9.99 })), 422, 'LIMIT_EXCEEDED', /^payoutAmt: .*10\.00 and 500000\.00 MXN/);
    await expectError(await api.create(payoutBody('MX_SPEI', { payoutAmt: 500000.01 })), 422, 'LIMIT_EXCEEDED');
    assert.equal((await api.create(payoutBody('MX_SPEI', { payoutAmt: 10 }))).status, 201);
  });
  test('more than the available prefund: 422 INSUFFICIENT_PREFUND, nothing created, nothing reserved', async () => {
    const body = payoutBody('NG_NIP', { payoutAmt: 4_999_999 });
    const beforeNg = await available(member, 'PARTNER_NG');
    await expectError(await api.create({ ...body, payoutAmt: 4_990_000 }), 422, 'INSUFFICIENT_PREFUND');
    assert.equal(await available(member, 'PARTNER_NG'), beforeNg);
    const { rows } = await service.db.query('SELECT count(*)::int AS n FROM payouts WHERE source_member_payout_id = $1', [body['sourceMemberPayoutId']]);
    assert.equal(rows[0].n, 0);
    const leftovers = await service.db.query(
      `SELECT count(*)::int AS n FROM events e WHERE NOT EXISTS (SELECT 1 FROM payouts p WHERE p.payout_id::text = e.resource_id)`,
    );
    assert.equal(leftovers.rows[0].n, 0, 'no event of a refused payout remains');
    // the id stays free: a request that fits may use it
    assert.equal((await api.create({ ...body, payoutAmt: 100 })).status, 201);
  });
});

describe("another member's payout", () => {
  test('is 404 NOT_FOUND on every operation, as an unknown or malformed id', async () => {
    const created = await api.created(payoutBody());
    const other = payoutApi(service.url, await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret, scope: 'payouts' }));
    for (const id of [String(created['payoutId']), '6f1d2c3b-1a2b-4c3d-8e9f-0a1b2c3d4e5f', 'not-a-uuid']) {
      await expectError(await other.get(id), 404, 'NOT_FOUND');
      await expectError(await other.status(id), 404, 'NOT_FOUND');
      await expectError(await other.process(id), 404, 'NOT_FOUND');
      await expectError(await other.cancel(id), 404, 'NOT_FOUND');
      await expectError(await other.simulate(id, { payoutStatus: 'RJCT' }), 404, 'NOT_FOUND');
    }
    assert.equal((await api.record(String(created['payoutId'])))['payoutStatus'], 'ACCP');
  });
});

describe('bodies of action routes', () => {
  test('process with Content-Type: application/json and an empty body is accepted', async () => {
    const created = await api.created(payoutBody());
    const withHeader = await fetch(`${service.url}/v2/payouts/${created['payoutId']}/process`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token(service.url, { scope: 'payouts' })}`, 'content-type': 'application/json' },
    });
    assert.equal(withHeader.status, 200);
    assert.equal((await json(withHeader))['payoutStatus'], 'PRCD');
  });
  test('cancel with an empty JSON body is 400 naming the body', async () => {
    const created = await api.created(payoutBody());
    const response = await fetch(`${service.url}/v2/payouts/${created['payoutId']}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token(service.url, { scope: 'payouts' })}`, 'content-type': 'application/json' },
    });
    await expectError(response, 400, 'VALIDATION_ERROR', /^body: /);
  });
});
