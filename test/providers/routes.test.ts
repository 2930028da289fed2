// GET /v2/payout-providers, /v2/payout-providers/{id} and /v2/payout-limits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { bearer, json, token, expectError } from '../support/http.ts';

let service: TestService;
let payouts: string;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  payouts = await token(service.url, { scope: 'payouts' });
});
after(async () => {
  await service.stop();
});

const get = (path: string, accessToken = payouts) => fetch(`${service.url}${path}`, { headers: bearer(accessToken) });


describe('payout providers', () => {
  test('the list holds every country of the sandbox world and all three methods', async () => {
    const list = await json<Array<Record<string, unknown>>>(await get('/v2/payout-providers'));
    const countries = new Set(list.map((p) => p['countryCode']));
    for (const country of ['MX', 'BR', 'PH', 'IN', 'NG', 'KE']) assert.ok(countries.has(country), country);
    const methods = new Set(list.flatMap((p) => p['payoutMethods'] as string[]));
    assert.deepEqual([...methods].sort(), ['BANK_ACCOUNT', 'CASH_PICKUP', 'WALLET']);
    for (const p of list) {
      assert.deepEqual(Object.keys(p).sort(), ['countryCode', 'currencies', 'destinationMemberId', 'name', 'payoutMethods', 'payoutProviderId', 'segments']);
      assert.match(String(p['payoutProviderId']), /^[A-Z_]+$/);
    }
  });

  test('countryCode filters (any case); an unknown country gives []; a malformed one is 400', async () => {
    const mx = await json<Array<Record<string, unknown>>>(await get('/v2/payout-providers?countryCode=mx'));
    assert.deepEqual(mx.map((p) => p['payoutProviderId']), ['MX_CASH', 'MX_SPEI']);
    assert.deepEqual(await json(await get('/v2/payout-providers?countryCode=FR')), []);
    await expectError(await get('/v2/payout-providers?countryCode=MEX'), 400, 'VALIDATION_ERROR', /^countryCode: /);
  });

  test('details carry limits and fees as numbers and the field rules with examples', async () => {
    const response = await get('/v2/payout-providers/MX_SPEI');
    assert.equal(response.status, 200);
    const body = await json<Record<string, unknown>>(response);
    assert.deepEqual(body['limits'], [{ currency: 'MXN', minimumLimit: 10, maximumLimit: 500000 }]);
    assert.deepEqual(body['fees'], [{ currency: 'MXN', fixedFee: 15, percentageFee: 0.5 }]);
    const clabe = (body['fields'] as Array<Record<string, unknown>>).find((f) => f['name'] === 'beneficiary.accountNumber')!;
    assert.equal(clabe['format'], 'clabe');
    assert.equal(clabe['required'], true);
    assert.equal(clabe['example'], '032180000118359719');
  });

  test('an unknown provider is 404', async () => {
    await expectError(await get('/v2/payout-providers/XX_NOPE'), 404, 'NOT_FOUND', /XX_NOPE/);
  });

  test('the payouts scope is needed', async () => {
    const other = await token(service.url, { scope: 'settlements' });
    await expectError(await get('/v2/payout-providers', other), 403, 'INSUFFICIENT_SCOPE');
    await expectError(await get('/v2/payout-limits?countryCode=MX', other), 403, 'INSUFFICIENT_SCOPE');
  });
});

describe('payout limits', () => {
  test('by country, by provider, and both (both must match)', async () => {
    const byCountry = await json<Array<Record<string, unknown>>>(await get('/v2/payout-limits?countryCode=MX'));
    assert.deepEqual(byCountry, [
      { payoutProviderId: 'MX_CASH', currency: 'MXN', minimumLimit: 100, maximumLimit: 50000 },
      { payoutProviderId: 'MX_SPEI', currency: 'MXN', minimumLimit: 10, maximumLimit: 500000 },
    ]);
    assert.deepEqual(await json(await get('/v2/payout-limits?payoutProviderId=BR_PIX')), [
      { payoutProviderId: 'BR_PIX', currency: 'BRL', minimumLimit: 1, maximumLimit: 100000 },
    ]);
    assert.equal((await json<unknown[]>(await get('/v2/payout-limits?countryCode=BR&payoutProviderId=BR_PIX'))).length, 1);
    assert.deepEqual(await json(await get('/v2/payout-limits?countryCode=MX&payoutProviderId=BR_PIX')), []);
  });

  test('neither filter is 400 VALIDATION_ERROR', async () => {
    await expectError(await get('/v2/payout-limits'), 400, 'VALIDATION_ERROR', /countryCode or payoutProviderId/);
  });

  test('filters out of their patterns are 400 naming them', async () => {
    await expectError(await get('/v2/payout-limits?countryCode=M1'), 400, 'VALIDATION_ERROR', /^countryCode: /);
    await expectError(await get('/v2/payout-limits?payoutProviderId=MX-SPEI'), 400, 'VALIDATION_ERROR', /^payoutProviderId: /);
    await expectError(await get('/v2/payout-limits?countryCode=MX&colour=red'), 400, 'VALIDATION_ERROR', /^colour: /);
  });
});
