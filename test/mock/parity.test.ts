// Mock mode reads the sandbox's provider catalogue and runs the sandbox's own stateless rules for
// creations: each catalogue read and each valid or invalid payout, rate and settlement request of
// the tables below is sent to the mock and to the real sandbox service (real PostgreSQL), and must
// get the same status, the same error body, and for a creation the same fee, amounts and fields
// that do not depend on stored state; ids are fresh and times coherent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.ts';
import { bearer, json, token } from '../support/http.ts';
import { payoutBody } from '../support/payouts.ts';

const EXPIRY_HOURS = 6;
const LOCK_MINUTES = 5;
const SETTINGS = { PAYOUT_EXPIRY_HOURS: String(EXPIRY_HOURS), RATE_LOCK_MINUTES: String(LOCK_MINUTES) };

let real: TestService;
let mock: TestService;
let realToken: string;
let mockToken: string;
before(async () => {
  [real, mock] = await Promise.all([
    startTestService({ WORKERS: '0', WEBHOOK_WORKERS: '0', ...SETTINGS }),
    startTestService({ MODE: 'mock', ...SETTINGS }),
  ]);
  [realToken, mockToken] = await Promise.all([token(real.url), token(mock.url)]);
});
after(async () => {
  await Promise.all([real.stop(), mock.stop()]);
});

type Json = Record<string, unknown>;

function send(service: 'real' | 'mock', method: string, path: string, body?: unknown): Promise<Response> {
  const [base, accessToken] = service === 'real' ? [real.url, realToken] : [mock.url, mockToken];
  return fetch(`${base}${path}`, {
    method,
    headers: { ...bearer(accessToken), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Both answers, with the time window they were given in. */
async function both(method: string, path: string, body?: unknown) {
  const startMs = Date.now();
  const [fromReal, fromMock] = await Promise.all([send('real', method, path, body), send('mock', method, path, body)]);
  const answers = { real: { status: fromReal.status, body: await json(fromReal) }, mock: { status: fromMock.status, body: await json(fromMock) } };
  return { ...answers, startMs, endMs: Date.now() };
}

const pick = (record: Json, keys: string[]) => Object.fromEntries(keys.map((k) => [k, record[k]]));

function assertTimeAhead(iso: unknown, startMs: number, endMs: number, aheadMs: number, label: string) {
  const at = Date.parse(String(iso));
  // the service's clock may read a few milliseconds either side of the test's own
  assert.ok(at >= startMs + aheadMs - 1000 && at <= endMs + aheadMs + 1000, `${label}: ${String(iso)} is not ${aheadMs} ms after the request`);
}

/** A refusal: same status and the same Error body from both. */
async function assertSameRefusal(name: string, method: string, path: string, body: unknown, status: number, code: string) {
  const answers = await both(method, path, body);
  assert.equal(answers.real.status, status, `${name}: real ${JSON.stringify(answers.real.body)}`);
  assert.equal(answers.mock.status, status, `${name}: mock ${JSON.stringify(answers.mock.body)}`);
  assert.equal(answers.real.body['code'], code, name);
  assert.deepEqual(answers.mock.body, answers.real.body, name);
}

describe('the payout provider catalogue', () => {
  const READS: Array<{ path: string; status: number }> = [
    { path: '/v2/payout-providers', status: 200 },
    { path: '/v2/payout-providers?countryCode=mx', status: 200 },
    { path: '/v2/payout-providers?countryCode=FR', status: 200 },
    { path: '/v2/payout-providers/BR_PIX', status: 200 },
    { path: '/v2/payout-providers/XX_NOWHERE', status: 404 },
    { path: '/v2/payout-limits?countryCode=IN', status: 200 },
    { path: '/v2/payout-limits?payoutProviderId=mx_cash', status: 200 },
    { path: '/v2/payout-limits', status: 400 },
  ];
  for (const { path, status } of READS) {
    test(`the same answer: GET ${path}`, async () => {
      const answers = await both('GET', path);
      assert.equal(answers.real.status, status);
      assert.equal(answers.mock.status, status);
      assert.deepEqual(answers.mock.body, answers.real.body);
    });
  }
});

const PAYOUT_FIELDS = ['sourceMemberPayoutId', 'payoutStatus', 'destinationCcy', 'payoutAmt', 'transferFee', 'beneficiaryName'];

describe('payouts', () => {
  const VALID: Array<{ name: string; body: Json; transferFee: number }> = [
    { name: 'MX_SPEI with a good CLABE: 15 MXN + 0.5 %', body: payoutBody('MX_SPEI', { payoutAmt: 1000 }), transferFee: 20 },
    { name: 'MX_SPEI B2B, payoutMethod given', body: payoutBody('MX_SPEI', { payoutAmt: 2500.55, segment: 'B2B', payoutMethod: 'BANK_ACCOUNT' }), transferFee: 27.5 },
    { name: 'MX_CASH: 35 MXN + 1 %', body: payoutBody('MX_CASH', { payoutAmt: 1000 }), transferFee: 45 },
    { name: 'BR_PIX: 1.50 BRL + 0.8 %', body: payoutBody('BR_PIX', { payoutAmt: 1000 }), transferFee: 9.5 },
    { name: 'IN_IMPS: 25 INR + 0.25 %', body: payoutBody('IN_IMPS', { payoutAmt: 1000 }), transferFee: 27.5 },
    { name: 'IN_IMPS, a fee that rounds half up', body: payoutBody('IN_IMPS', { payoutAmt: 1234.56 }), transferFee: 28.09 },
    { name: 'PH_GCASH: a fixed 10 PHP', body: payoutBody('PH_GCASH', { payoutAmt: 50 }), transferFee: 10 },
    { name: 'NG_NIP with a good NUBAN', body: payoutBody('NG_NIP', { payoutAmt: 1000 }), transferFee: 55 },
    { name: 'KE_MPESA at its maximum', body: payoutBody('KE_MPESA', { payoutAmt: 150000 }), transferFee: 780 },
  ];

  for (const { name, body, transferFee } of VALID) {
    test(`valid: ${name}`, async () => {
      const answers = await both('POST', '/v2/payouts', body);
      assert.equal(answers.real.status, 201, JSON.stringify(answers.real.body));
      assert.equal(answers.mock.status, 201, JSON.stringify(answers.mock.body));
      assert.deepEqual(pick(answers.mock.body, PAYOUT_FIELDS), pick(answers.real.body, PAYOUT_FIELDS));
      assert.equal(answers.mock.body['transferFee'], transferFee);
      assert.deepEqual(Object.keys(answers.mock.body).sort(), Object.keys(answers.real.body).sort());
      const payoutId = answers.mock.body['payoutId'] as string;
      assert.deepEqual(answers.mock.body['links'], JSON.parse(JSON.stringify(answers.real.body['links']).replaceAll(answers.real.body['payoutId'] as string, payoutId)));
      for (const side of [answers.real, answers.mock]) assertTimeAhead(side.body['expiryTime'], answers.startMs, answers.endMs, EXPIRY_HOURS * 3_600_000, name);
    });
  }

  const BAD_CLABE = '032180000118359718';
  const REFUSED: Array<{ name: string; body: Json; status: number; code: string }> = [
    { name: 'a bad CLABE check digit', body: payoutBody('MX_SPEI', { beneficiary: { firstName: 'Maria', lastName: 'Lopez', accountNumber: BAD_CLABE } }), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'a CLABE of 17 digits', body: payoutBody('MX_SPEI', { beneficiary: { firstName: 'Maria', lastName: 'Lopez', accountNumber: '03218000011835971' } }), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'a bad CPF check digit', body: payoutBody('BR_PIX', { beneficiary: { firstName: 'Ana', lastName: 'Souza', pixType: 'CPF', pixKey: '52998224725', taxId: '52998224724' } }), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'a bad NUBAN check digit', body: payoutBody('NG_NIP', { beneficiary: { firstName: 'Chinedu', lastName: 'Okafor', branchNumber: '058', accountNumber: '0123456784' } }), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'a bad IFSC', body: payoutBody('IN_IMPS', { beneficiary: { firstName: 'Priya', lastName: 'Sharma', branchNumber: 'SBIN1001234', accountNumber: '123456789012' } }), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'a required field missing (BR_PIX pixKey)', body: payoutBody('BR_PIX', { beneficiary: { firstName: 'Ana', lastName: 'Souza', pixType: 'CPF', taxId: '52998224725' } }), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'a required sender field missing (MX_CASH dateOfBirth)', body: payoutBody('MX_CASH', { sender: { firstName: 'John', lastName: 'Smith', countryCode: 'US' } }), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'a wallet number of another country (PH_GCASH)', body: payoutBody('PH_GCASH', { beneficiary: { firstName: 'Jose', lastName: 'Reyes', phone: '+254712345678' } }), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'a segment the provider does not serve', body: payoutBody('PH_GCASH', { segment: 'B2B' }), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'too many decimals', body: payoutBody('MX_SPEI', { payoutAmt: 100.123 }), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'an unknown provider', body: payoutBody('MX_SPEI', { payoutProviderId: 'XX_NOWHERE' }), status: 422, code: 'UNKNOWN_PAYOUT_PROVIDER' },
    { name: 'a provider behind a suspended corridor (GH_MOMO)', body: payoutBody('MX_SPEI', { payoutProviderId: 'GH_MOMO', destinationCcy: 'GHS', beneficiary: { firstName: 'Kofi', lastName: 'Mensah', phone: '+233241234567' } }), status: 422, code: 'UNKNOWN_PAYOUT_PROVIDER' },
    { name: 'an unsupported currency', body: payoutBody('MX_SPEI', { destinationCcy: 'USD' }), status: 422, code: 'UNSUPPORTED_CURRENCY' },
    { name: 'an unsupported method', body: payoutBody('MX_SPEI', { payoutMethod: 'WALLET' }), status: 422, code: 'UNSUPPORTED_PAYOUT_METHOD' },
    { name: 'an amount under the minimum', body: payoutBody('MX_SPEI', { payoutAmt: 9.99 }), status: 422, code: 'LIMIT_EXCEEDED' },
    { name: 'an amount above the maximum', body: payoutBody('MX_SPEI', { payoutAmt: 500000.01 }), status: 422, code: 'LIMIT_EXCEEDED' },
    { name: 'schema: no sender', body: { ...payoutBody('MX_SPEI'), sender: undefined }, status: 400, code: 'VALIDATION_ERROR' },
    { name: 'schema: the amount as text', body: payoutBody('MX_SPEI', { payoutAmt: '100' }), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'schema: a negative amount', body: payoutBody('MX_SPEI', { payoutAmt: -5 }), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'schema: an unknown property', body: payoutBody('MX_SPEI', { color: 'red' }), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'schema: a method out of its enum', body: payoutBody('MX_SPEI', { payoutMethod: 'CHEQUE' }), status: 400, code: 'VALIDATION_ERROR' },
  ];

  for (const { name, body, status, code } of REFUSED) {
    test(`refused alike: ${name}`, () => assertSameRefusal(name, 'POST', '/v2/payouts', body, status, code));
  }

  test('every created payout has its own id; the same request twice is two payouts in the mock', async () => {
    const body = payoutBody('MX_SPEI');
    const ids = new Set<string>();
    for (let i = 0; i < 2; i += 1) {
      const response = await send('mock', 'POST', '/v2/payouts', body);
      assert.equal(response.status, 201);
      assert.equal(response.headers.get('x-mock-example'), null, 'answered by the rules, not an example');
      const created = await json(response);
      assert.match(created['payoutId'] as string, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(response.headers.get('location'), `/v2/payouts/${created['payoutId']}`);
      ids.add(created['payoutId'] as string);
    }
    assert.equal(ids.size, 2);
  });
});

test('only a Prefer that names an example or a code sets the rules aside', async () => {
  const body = JSON.stringify(payoutBody('MX_SPEI', { payoutAmt: 5 }));
  const post = (prefer: string) => fetch(`${mock.url}/v2/payouts`, {
    method: 'POST', headers: { ...bearer(mockToken), 'content-type': 'application/json', prefer }, body,
  });
  const ruled = await post('return=minimal');
  assert.equal(ruled.status, 422);
  assert.equal((await json(ruled))['code'], 'LIMIT_EXCEEDED');
  const example = await post('code=201');
  assert.equal(example.status, 201);
  assert.equal(example.headers.get('x-mock-example'), 'example1');
  await example.arrayBuffer();
});

const RATE_FIELDS = ['sourceMemberId', 'destinationMemberId', 'sourceCcy', 'destinationCcy', 'rate', 'forecastRates'];

/** Runs `check` until the two services quoted in the same minute (the sandbox rates move once a minute). */
async function inOneMinute(check: () => Promise<boolean>) {
  for (let attempt = 0; attempt < 3; attempt += 1) if (await check()) return;
  assert.fail('the two services never quoted the same rate');
}

describe('settlement rates', () => {
  for (const destinationMemberId of ['PARTNER_MX', 'PARTNER_BR', 'PARTNER_NG']) {
    test(`a rate lock for ${destinationMemberId}: the same rates, a fresh id, expiring in the future`, async () => {
      await inOneMinute(async () => {
        const answers = await both('GET', `/v2/settlement-rates?destinationMemberId=${destinationMemberId}`);
        assert.equal(answers.real.status, 200);
        assert.equal(answers.mock.status, 200);
        for (const side of [answers.real, answers.mock]) assertTimeAhead(side.body['expiryTime'], answers.startMs, answers.endMs, LOCK_MINUTES * 60_000, destinationMemberId);
        assert.notEqual(answers.mock.body['rateId'], answers.real.body['rateId']);
        return JSON.stringify(pick(answers.mock.body, RATE_FIELDS)) === JSON.stringify(pick(answers.real.body, RATE_FIELDS));
      });
    });
  }

  const REFUSED: Array<{ name: string; query: string; status: number; code: string }> = [
    { name: 'an unknown destination member', query: '?destinationMemberId=PARTNER_XX', status: 422, code: 'UNKNOWN_DESTINATION_MEMBER' },
    { name: 'a source member as destination', query: '?destinationMemberId=DEMO_SOURCE_2', status: 422, code: 'UNKNOWN_DESTINATION_MEMBER' },
    { name: 'a suspended corridor', query: '?destinationMemberId=PARTNER_GH', status: 422, code: 'CORRIDOR_INACTIVE' },
    { name: 'a currency the member does not settle in', query: '?destinationMemberId=PARTNER_MX&destinationCcy=BRL', status: 422, code: 'UNSUPPORTED_CURRENCY' },
    { name: 'schema: no destinationMemberId', query: '', status: 400, code: 'VALIDATION_ERROR' },
  ];
  for (const { name, query, status, code } of REFUSED) {
    test(`refused alike: ${name}`, () => assertSameRefusal(name, 'GET', `/v2/settlement-rates${query}`, undefined, status, code));
  }

  test('two rate locks have two ids', async () => {
    const [first, second] = await Promise.all([1, 2].map(async () => json(await send('mock', 'GET', '/v2/settlement-rates?destinationMemberId=PARTNER_MX'))));
    assert.notEqual(first!['rateId'], second!['rateId']);
  });
});

const SETTLEMENT_FIELDS = [
  'settlementStatus', 'settlementAmt', 'pendingAmt', 'rate', 'settlementAmtReceived', 'sourceCcy', 'destinationCcy', 'sourceMemberId',
  'destinationMemberId', 'notes', 'completionTime', 'executionInterval',
];

describe('settlements', () => {
  /** A rate locked now at each service for the destination member (a valid rateId for the real one). */
  async function rateIds(destinationMemberId: string): Promise<{ real: string; mock: string }> {
    const answers = await both('GET', `/v2/settlement-rates?destinationMemberId=${destinationMemberId}`);
    assert.equal(answers.real.status, 200);
    return { real: answers.real.body['rateId'] as string, mock: answers.mock.body['rateId'] as string };
  }

  async function create(body: Json, destinationMemberId = 'PARTNER_MX') {
    const ids = await rateIds(destinationMemberId);
    const startMs = Date.now();
    const [fromReal, fromMock] = await Promise.all([
      send('real', 'POST', '/v2/settlements', { ...body, rateId: ids.real }),
      send('mock', 'POST', '/v2/settlements', { ...body, rateId: ids.mock }),
    ]);
    return { real: { status: fromReal.status, body: await json(fromReal) }, mock: { status: fromMock.status, body: await json(fromMock) }, ids, startMs, endMs: Date.now() };
  }

  for (const [executionInterval, hours, status] of [['IMMEDIATE', 0, 'S200_RECEIVED'], ['TWO_HOURS', 2, 'S100_SCHEDULED']] as const) {
    test(`valid, ${executionInterval}: the same record, its own id, due ${hours} h after its creation`, async () => {
      const body = { destinationMemberId: 'PARTNER_MX', settlementAmt: 25000.5, executionInterval, notes: 'top-up' };
      await inOneMinute(async () => {
        const answers = await create(body);
        assert.equal(answers.real.status, 201, JSON.stringify(answers.real.body));
        assert.equal(answers.mock.status, 201, JSON.stringify(answers.mock.body));
        assert.equal(answers.mock.body['settlementStatus'], status);
        assert.equal(answers.mock.body['rateId'], answers.ids.mock);
        assert.notEqual(answers.mock.body['settlementId'], answers.real.body['settlementId']);
        for (const side of [answers.real, answers.mock]) {
          assertTimeAhead(side.body['creationTime'], answers.startMs, answers.endMs, 0, 'creationTime');
          assert.equal(Date.parse(side.body['dueDate'] as string) - Date.parse(side.body['creationTime'] as string), hours * 3_600_000);
        }
        return JSON.stringify(pick(answers.mock.body, SETTLEMENT_FIELDS)) === JSON.stringify(pick(answers.real.body, SETTLEMENT_FIELDS));
      });
    });
  }

  const REFUSED: Array<{ name: string; body: Json; rateFor?: string; status: number; code: string }> = [
    { name: 'an unknown destination member', body: { destinationMemberId: 'PARTNER_XX', settlementAmt: 100, executionInterval: 'IMMEDIATE' }, status: 422, code: 'UNKNOWN_DESTINATION_MEMBER' },
    { name: 'a suspended corridor', body: { destinationMemberId: 'PARTNER_GH', settlementAmt: 100, executionInterval: 'IMMEDIATE' }, status: 422, code: 'CORRIDOR_INACTIVE' },
    { name: 'an amount above the corridor maximum', body: { destinationMemberId: 'PARTNER_MX', settlementAmt: 500000.01, executionInterval: 'IMMEDIATE' }, status: 422, code: 'AMOUNT_ABOVE_CORRIDOR_MAX' },
    { name: 'an amount above a smaller corridor maximum', body: { destinationMemberId: 'PARTNER_KE', settlementAmt: 100000.01, executionInterval: 'ONE_HOUR' }, rateFor: 'PARTNER_KE', status: 422, code: 'AMOUNT_ABOVE_CORRIDOR_MAX' },
    { name: 'too many decimals for USD', body: { destinationMemberId: 'PARTNER_MX', settlementAmt: 100.001, executionInterval: 'IMMEDIATE' }, status: 400, code: 'VALIDATION_ERROR' },
    { name: 'schema: an unknown interval', body: { destinationMemberId: 'PARTNER_MX', settlementAmt: 100, executionInterval: 'SOMEDAY' }, status: 400, code: 'VALIDATION_ERROR' },
    { name: 'schema: an amount under 0.01', body: { destinationMemberId: 'PARTNER_MX', settlementAmt: 0.001, executionInterval: 'IMMEDIATE' }, status: 400, code: 'VALIDATION_ERROR' },
  ];
  for (const { name, body, rateFor, status, code } of REFUSED) {
    test(`refused alike: ${name}`, async () => {
      const answers = await create(body, rateFor);
      assert.equal(answers.real.status, status, `${name}: real ${JSON.stringify(answers.real.body)}`);
      assert.equal(answers.mock.status, status, `${name}: mock ${JSON.stringify(answers.mock.body)}`);
      assert.equal(answers.real.body['code'], code, name);
      assert.deepEqual(answers.mock.body, answers.real.body, name);
    });
  }

  test('schema: a rateId that is not a uuid is refused alike', () =>
    assertSameRefusal('rateId', 'POST', '/v2/settlements', { destinationMemberId: 'PARTNER_MX', settlementAmt: 100, rateId: 'r-1', executionInterval: 'IMMEDIATE' }, 400, 'VALIDATION_ERROR'));

  test('two settlements have two ids', async () => {
    const body = { destinationMemberId: 'PARTNER_MX', settlementAmt: 100, rateId: randomUUID(), executionInterval: 'IMMEDIATE' };
    const [first, second] = await Promise.all([1, 2].map(async () => json(await send('mock', 'POST', '/v2/settlements', body))));
    assert.notEqual(first!['settlementId'], second!['settlementId']);
  });
});
