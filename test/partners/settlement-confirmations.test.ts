// POST /partner-api/v1/settlement-confirmations: a destination member's signed confirmation that it
// credited a settlement, recorded once and only with the agreed amount; everything else refused
// with its code, and a differing confirmation kept for review.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.ts';
import { expectError, json, token } from '../support/http.ts';
import { newKey, registeredKey, sendSigned, type TestKey } from '../support/partners.ts';
import { advanceTo, creditOf, settlementApi } from '../support/settlements.ts';
import { recordNotice } from '../../src/settlements/confirmations-repo.ts';

const PATH = '/partner-api/v1/settlement-confirmations';

let service: TestService;
let auth: string;
let mxKey: TestKey;
let phKey: TestKey;

before(async () => {
  service = await startTestService({ WORKERS: '0' });
  auth = await token(service.url, { scope: 'settlements' });
  mxKey = await registeredKey(service.db, 'PARTNER_MX');
  phKey = await registeredKey(service.db, 'PARTNER_PH');
});
after(async () => {
  await service.stop();
});

/** A sandbox settlement to PARTNER_MX at the withdrawal, its notice recorded as the bank records it before sending. */
async function noticed(settlementAmt = 1000): Promise<{ settlementId: string; reference: string; credit: string }> {
  const created = await settlementApi(service.url, auth).settle('PARTNER_MX', { settlementAmt });
  const settlementId = String(created['settlementId']);
  await advanceTo(service.url, auth, settlementId, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS');
  const credit = creditOf(String(settlementAmt), String(created['rate']));
  const reference = `${settlementId}:WITHDRAWAL`;
  await recordNotice(service.db, { reference, settlementId, destinationMemberId: 'PARTNER_MX', currency: 'MXN', creditAmount: credit });
  return { settlementId, reference, credit };
}

const confirmation = (reference: string, creditedAmount: string, overrides: Record<string, unknown> = {}) => ({
  reference, creditedAmount, currency: 'MXN', creditedAt: '2026-11-23T12:00:00.000Z', partnerCreditId: `cr-${randomUUID()}`, ...overrides,
});

async function recorded(settlementId: string) {
  const { rows } = await service.db.query('SELECT credited_amount::text AS amount, currency, partner_credit_id AS "creditId" FROM settlement_confirmations WHERE settlement_id = $1', [settlementId]);
  return rows;
}

async function refusals(settlementId: string) {
  const { rows } = await service.db.query('SELECT reason, credited_amount AS amount, currency FROM settlement_confirmation_refusals WHERE settlement_id = $1 ORDER BY refusal_id', [settlementId]);
  return rows;
}

describe('a signed confirmation', () => {
  test('of the agreed amount is recorded; the same again answers alike and records nothing more', async () => {
    const { settlementId, reference, credit } = await noticed(1234.57);
    const body = confirmation(reference, credit);
    const first = await sendSigned(service.url, PATH, mxKey, body);
    assert.equal(first.status, 200);
    const answer = await json(first);
    assert.deepEqual(answer, { settlementId, reference, partnerCreditId: body.partnerCreditId, creditedAmount: credit, currency: 'MXN' });
    const again = await sendSigned(service.url, PATH, mxKey, body);
    assert.equal(again.status, 200);
    assert.deepEqual(await json(again), answer);
    assert.deepEqual(await recorded(settlementId), [{ amount: `${credit}00`, currency: 'MXN', creditId: body.partnerCreditId }]);
    assert.deepEqual(await refusals(settlementId), []);
  });

  test('may name the settlement by settlementId, and the amount with other trailing zeros is the same amount', async () => {
    const { settlementId, reference, credit } = await noticed(500);
    const { reference: _r, ...body } = confirmation(reference, `${credit}00`, { settlementId });
    const response = await sendSigned(service.url, PATH, mxKey, body);
    assert.equal(response.status, 200);
    assert.equal((await json(response))['reference'], reference);
    assert.equal((await recorded(settlementId)).length, 1);
  });

  test('of a different amount is refused 409 INVALID_STATE and kept for review; the agreed amount is then accepted', async () => {
    const { settlementId, reference, credit } = await noticed(800);
    const cents = BigInt(credit.replace('.', '')) + 1n; // one centavo more than agreed
    const more = `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
    await expectError(await sendSigned(service.url, PATH, mxKey, confirmation(reference, more)), 409, 'INVALID_STATE', new RegExp(`creditedAmount: ${more} MXN credited, ${credit} MXN agreed`));
    assert.deepEqual(await recorded(settlementId), []);
    assert.deepEqual(await refusals(settlementId), [{ reason: 'AMOUNT_MISMATCH', amount: more, currency: 'MXN' }]);
    assert.equal((await sendSigned(service.url, PATH, mxKey, confirmation(reference, credit))).status, 200);
  });

  test('in another currency is refused 409 INVALID_STATE and kept for review', async () => {
    const { settlementId, reference, credit } = await noticed(300);
    await expectError(await sendSigned(service.url, PATH, mxKey, confirmation(reference, credit, { currency: 'USD' })), 409, 'INVALID_STATE');
    assert.deepEqual(await refusals(settlementId), [{ reason: 'AMOUNT_MISMATCH', amount: credit, currency: 'USD' }]);
  });

  test('changed after one was recorded is refused 422 IDEMPOTENCY_KEY_REUSED and kept for review; the first stands', async () => {
    const { settlementId, reference, credit } = await noticed(400);
    const first = confirmation(reference, credit);
    assert.equal((await sendSigned(service.url, PATH, mxKey, first)).status, 200);
    await expectError(await sendSigned(service.url, PATH, mxKey, { ...first, partnerCreditId: 'cr-other' }), 422, 'IDEMPOTENCY_KEY_REUSED');
    await expectError(await sendSigned(service.url, PATH, mxKey, { ...first, creditedAt: '2026-11-23T12:00:01Z' }), 422, 'IDEMPOTENCY_KEY_REUSED');
    assert.deepEqual((await refusals(settlementId)).map((r) => r.reason), ['CONFIRMATION_CHANGED', 'CONFIRMATION_CHANGED']);
    assert.deepEqual(await recorded(settlementId), [{ amount: `${credit}00`, currency: 'MXN', creditId: first.partnerCreditId }]);
  });

  test('sent 8 times at once is recorded once, every copy answered 200 alike', async () => {
    const { settlementId, reference, credit } = await noticed(600);
    const body = confirmation(reference, credit);
    const responses = await Promise.all(Array.from({ length: 8 }, () => sendSigned(service.url, PATH, mxKey, body)));
    assert.deepEqual(responses.map((r) => r.status), Array(8).fill(200));
    const answers = await Promise.all(responses.map((r) => json(r)));
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.equal((await recorded(settlementId)).length, 1);
  });
});

describe('refused', () => {
  test('a body changed after signing is 401 UNAUTHORIZED and nothing is recorded', async () => {
    const { settlementId, reference, credit } = await noticed(200);
    const response = await sendSigned(service.url, PATH, mxKey, confirmation(reference, credit), { tamper: (t) => t.replace(credit, '1.00') });
    await expectError(response, 401, 'UNAUTHORIZED', /Content-Digest/);
    assert.deepEqual(await recorded(settlementId), []);
    assert.deepEqual(await refusals(settlementId), []);
  });

  test('a signature by another private key under the partner\'s keyid is 401 UNAUTHORIZED', async () => {
    const { settlementId, reference, credit } = await noticed(210);
    await expectError(await sendSigned(service.url, PATH, newKey(mxKey.keyId), confirmation(reference, credit)), 401, 'UNAUTHORIZED', /Signature/);
    assert.deepEqual(await recorded(settlementId), []);
  });

  test('an unsigned confirmation is 401 UNAUTHORIZED', async () => {
    const response = await fetch(`${service.url}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(confirmation('x:WITHDRAWAL', '1.00')) });
    await expectError(response, 401, 'UNAUTHORIZED');
  });

  test('an unknown settlement is 404 NOT_FOUND', async () => {
    await expectError(await sendSigned(service.url, PATH, mxKey, confirmation(`${randomUUID()}:WITHDRAWAL`, '1.00')), 404, 'NOT_FOUND', /reference/);
    const { reference: _r, ...byId } = confirmation('', '1.00', { settlementId: randomUUID() });
    await expectError(await sendSigned(service.url, PATH, mxKey, byId), 404, 'NOT_FOUND');
  });

  test('another destination member\'s settlement is 404 NOT_FOUND and nothing is recorded', async () => {
    const { settlementId, reference, credit } = await noticed(220);
    await expectError(await sendSigned(service.url, PATH, phKey, confirmation(reference, credit)), 404, 'NOT_FOUND');
    assert.deepEqual(await recorded(settlementId), []);
    assert.deepEqual(await refusals(settlementId), []);
  });

  test('naming no settlement is 400 VALIDATION_ERROR; a JSON number amount is 400', async () => {
    const { reference: _r, ...unnamed } = confirmation('', '1.00');
    await expectError(await sendSigned(service.url, PATH, mxKey, unnamed), 400, 'VALIDATION_ERROR', /reference or settlementId/);
    await expectError(await sendSigned(service.url, PATH, mxKey, confirmation(`${randomUUID()}:WITHDRAWAL`, 1 as unknown as string)), 400, 'VALIDATION_ERROR');
  });
});
