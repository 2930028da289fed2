// POST /partner-api/v1/reports: signed partner reports, deduplicated, order-independent, applied
// through the payouts area's partner-report job; and the protocol's own OpenAPI document.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestService, type TestService } from '../support/service.ts';
import { expectError, json, token } from '../support/http.ts';
import { eventually, payoutApi, payoutBody } from '../support/payouts.ts';
import { newKey, registeredKey, reportBody, sendReport, type TestKey } from '../support/partners.ts';
import { createPartnersAdmin } from '../../src/partners/admin.ts';
import { createSigner, httpbis } from 'http-message-signatures';
import { contentDigest, signRequest } from '../../src/partners/signatures.ts';

let service: TestService;
let api: ReturnType<typeof payoutApi>;
let mxKey: TestKey;

before(async () => {
  service = await startTestService();
  api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
  mxKey = await registeredKey(service.db, 'PARTNER_MX');
});
after(async () => {
  await service.stop();
});

/** A processed payout: MX_CASH waits PNDG for pickup, MX_SPEI is PRCD at once. */
async function processed(provider: 'MX_CASH' | 'MX_SPEI'): Promise<string> {
  const id = String((await api.created(payoutBody(provider, { payoutAmt: 150 })))['payoutId']);
  assert.equal((await api.process(id)).status, 200);
  return id;
}

const statusOf = async (id: string) => String((await api.record(id))['payoutStatus']);

async function reportCount(payoutId: string): Promise<number> {
  const { rows } = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM partner_reports WHERE payout_id = $1', [payoutId]);
  return rows[0]!.n;
}

/** Outbox events of the payout (one per change of its status). */
async function eventCount(payoutId: string): Promise<number> {
  const { rows } = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE resource_id = $1', [payoutId]);
  return rows[0]!.n;
}

describe('a signed report', () => {
  test('CASH_PICKED_UP moves a cash pickup payout from PNDG to PRCD with cashoutStatus PAID', async () => {
    const id = await processed('MX_CASH');
    assert.equal(await statusOf(id), 'PNDG');
    const response = await sendReport(service.url, mxKey, reportBody(id, { status: 'CASH_PICKED_UP' }));
    assert.equal(response.status, 200);
    const answer = await json(response);
    assert.equal(answer['applied'], true);
    assert.equal(answer['payoutId'], id);
    const record = await eventually(() => api.record(id), (r) => r['payoutStatus'] === 'PRCD');
    assert.equal(record['payoutStatus'], 'PRCD');
    assert.equal(record['cashoutStatus'], 'PAID');
  });

  test('a duplicate (same reportId) answers as the first and is applied once', async () => {
    const id = await processed('MX_CASH');
    const body = reportBody(id, { status: 'REJECTED', rejectReason: 'Beneficiary did not come' });
    const first = await json(await sendReport(service.url, mxKey, body));
    const second = await sendReport(service.url, mxKey, body);
    assert.equal(second.status, 200);
    assert.deepEqual(await json(second), first);
    assert.equal(await reportCount(id), 1);
    await eventually(() => statusOf(id), (s) => s === 'RJCT');
    assert.equal((await api.record(id))['rejectReason'], 'Beneficiary did not come');
    const events = await eventCount(id);
    const third = await sendReport(service.url, mxKey, body);
    assert.deepEqual(await json(third), first);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await eventCount(id), events, 'no second change');
  });

  test('the same report sent 10 times at once is recorded once, every copy answered alike', async () => {
    const id = await processed('MX_CASH');
    const body = reportBody(id, { status: 'CASH_PICKED_UP' });
    const answers = await Promise.all(Array.from({ length: 10 }, async () => {
      const response = await sendReport(service.url, mxKey, body);
      assert.equal(response.status, 200);
      return json(response);
    }));
    for (const answer of answers) assert.deepEqual(answer, { reportId: body['reportId'], payoutId: id, applied: true });
    assert.equal(await reportCount(id), 1);
    await eventually(() => statusOf(id), (s) => s === 'PRCD');
  });

  test('the same reportId with another status is refused (422), the first stands', async () => {
    const id = await processed('MX_CASH');
    const body = reportBody(id, { status: 'CASH_PICKED_UP' });
    assert.equal((await sendReport(service.url, mxKey, body)).status, 200);
    await expectError(await sendReport(service.url, mxKey, { ...body, status: 'FAILED' }), 422, 'IDEMPOTENCY_KEY_REUSED', /reportId/);
    await eventually(() => statusOf(id), (s) => s === 'PRCD');
  });

  test('an out-of-order report (sequence at or below the highest applied) is recorded, not applied', async () => {
    const id = await processed('MX_SPEI');
    assert.equal(await statusOf(id), 'PRCD');
    const returned = await json(await sendReport(service.url, mxKey, reportBody(id, { status: 'RETURNED', sequence: 2 })));
    assert.equal(returned['applied'], true);
    await eventually(() => statusOf(id), (s) => s === 'RVSD');
    const late = await sendReport(service.url, mxKey, reportBody(id, { status: 'PAID', sequence: 1 }));
    assert.equal(late.status, 200);
    assert.equal((await json(late))['applied'], false);
    const same = await json(await sendReport(service.url, mxKey, reportBody(id, { status: 'PAID', sequence: 2 })));
    assert.equal(same['applied'], false, 'an equal sequence is stale too');
    assert.equal(await reportCount(id), 3);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await statusOf(id), 'RVSD');
  });
});

describe('refusals', () => {
  test('a body changed after signing is 401 (Content-Digest)', async () => {
    const id = await processed('MX_CASH');
    const response = await sendReport(service.url, mxKey, reportBody(id), { tamper: (text) => text.replace('"sequence":1', '"sequence":9') });
    await expectError(response, 401, 'UNAUTHORIZED', /Content-Digest/);
    assert.equal(await reportCount(id), 0);
  });

  test('a signature made with another private key under a registered keyid is 401', async () => {
    const id = await processed('MX_CASH');
    const forger = { ...newKey(mxKey.keyId) };
    await expectError(await sendReport(service.url, forger, reportBody(id)), 401, 'UNAUTHORIZED', /Signature/);
  });

  test('a signature made for another host (replayed elsewhere) is 401', async () => {
    const id = await processed('MX_CASH');
    const text = JSON.stringify(reportBody(id));
    const headers = await signRequest({ method: 'POST', url: 'https://other.example/partner-api/v1/reports', headers: { 'content-type': 'application/json' }, body: text }, mxKey);
    const response = await fetch(`${service.url}/partner-api/v1/reports`, { method: 'POST', headers, body: text });
    await expectError(response, 401, 'UNAUTHORIZED', /Signature/);
  });

  test('a signature that does not cover the Content-Digest is 401, even with a correct digest header', async () => {
    const id = await processed('MX_CASH');
    const url = `${service.url}/partner-api/v1/reports`;
    const text = JSON.stringify(reportBody(id));
    const signed = await httpbis.signMessage({
      key: createSigner(mxKey.privateKey, 'ed25519', mxKey.keyId),
      fields: ['@method', '@authority', '@path'],
      params: ['keyid', 'alg', 'created'],
    }, { method: 'POST', url, headers: { 'content-type': 'application/json', 'content-digest': contentDigest(text) } });
    const response = await fetch(url, { method: 'POST', headers: signed.headers as Record<string, string>, body: text });
    await expectError(response, 401, 'UNAUTHORIZED');
  });

  test('an unknown keyid is 401', async () => {
    const id = await processed('MX_CASH');
    await expectError(await sendReport(service.url, newKey(), reportBody(id)), 401, 'UNAUTHORIZED', /keyid/);
  });

  test('no signature at all is 401, even with a bad body', async () => {
    const response = await fetch(`${service.url}/partner-api/v1/reports`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"sequence":0}' });
    await expectError(response, 401, 'UNAUTHORIZED', /Signature/);
  });

  test('a signature created more than 300 s ago is 401', async () => {
    const id = await processed('MX_CASH');
    const response = await sendReport(service.url, mxKey, reportBody(id), { created: new Date(Date.now() - 400_000) });
    await expectError(response, 401, 'UNAUTHORIZED', /created/);
  });

  test('a payout of another partner, or no payout, is 404', async () => {
    const id = await processed('MX_CASH');
    const brKey = await registeredKey(service.db, 'PARTNER_BR');
    await expectError(await sendReport(service.url, brKey, reportBody(id, { status: 'CASH_PICKED_UP' })), 404, 'NOT_FOUND', /payoutId/);
    await expectError(await sendReport(service.url, mxKey, reportBody(randomUUID())), 404, 'NOT_FOUND', /payoutId/);
    assert.equal(await statusOf(id), 'PNDG');
  });

  test('a bad body is 400 naming the field', async () => {
    const id = await processed('MX_CASH');
    await expectError(await sendReport(service.url, mxKey, reportBody(id, { sequence: 0 })), 400, 'VALIDATION_ERROR', /sequence/);
    await expectError(await sendReport(service.url, mxKey, reportBody(id, { status: 'LOST' })), 400, 'VALIDATION_ERROR', /status/);
    await expectError(await sendReport(service.url, mxKey, reportBody(id, { extra: 1 })), 400, 'VALIDATION_ERROR', /extra/);
    const { reportId: _r, ...noReportId } = reportBody(id);
    await expectError(await sendReport(service.url, mxKey, noReportId), 400, 'VALIDATION_ERROR', /reportId/);
  });
});

test('key rotation: old and new keys are both accepted while active; a retired key is refused', async () => {
  const admin = createPartnersAdmin({ db: service.db, actor: 'test' });
  const oldKey = await registeredKey(service.db, 'PARTNER_MX');
  const newer = await registeredKey(service.db, 'PARTNER_MX');
  const a = await processed('MX_CASH');
  const b = await processed('MX_CASH');
  assert.equal((await sendReport(service.url, oldKey, reportBody(a, { status: 'CASH_PICKED_UP' }))).status, 200);
  assert.equal((await sendReport(service.url, newer, reportBody(b, { status: 'CASH_PICKED_UP' }))).status, 200);
  assert.equal((await admin.retireKey(oldKey.keyId)).ok, true);
  const c = await processed('MX_CASH');
  await expectError(await sendReport(service.url, oldKey, reportBody(c, { status: 'CASH_PICKED_UP' })), 401, 'UNAUTHORIZED', /keyid/);
  assert.equal((await sendReport(service.url, newer, reportBody(c, { status: 'CASH_PICKED_UP' }))).status, 200);
});

describe('documents', () => {
  test('GET /partner-api/openapi.json is valid OpenAPI 3.1 with both sides of the protocol', async () => {
    const response = await fetch(`${service.url}/partner-api/openapi.json`);
    assert.equal(response.status, 200);
    const document = await json(response);
    const validator = new Validator();
    const result = await validator.validate(document);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    assert.equal(validator.version, '3.1');
    const paths = Object.keys(document['paths'] as object).sort();
    assert.deepEqual(paths, ['/partner-api/v1/keys', '/partner-api/v1/reports', '/partner-api/v1/settlement-confirmations',
      '/v1/payout-batches', '/v1/payouts', '/v1/payouts/{payoutId}', '/v1/payouts/{payoutId}/cancel', '/v1/settlements', '/v1/settlements/{reference}']);
    assert.equal((document['info'] as { version: string }).version, '1.2.0');
  });

  test('the member API document does not show the partner API', async () => {
    const text = await (await fetch(`${service.url}/openapi.json`)).text();
    assert.doesNotMatch(text, /partner-api|PartnerReport|SettlementConfirmation|PartnerSettlement/);
  });

  test('GET /partner-api/v1/keys serves the service\'s Ed25519 public key', async () => {
    const keys = await json<{ keys: Array<Record<string, string>> }>(await fetch(`${service.url}/partner-api/v1/keys`));
    assert.equal(keys.keys.length, 1);
    assert.equal(keys.keys[0]!['crv'], 'Ed25519');
    assert.match(keys.keys[0]!['kid']!, /^service-[0-9a-f]{16}$/);
    assert.equal(Buffer.from(keys.keys[0]!['x']!, 'base64url').length, 32);
  });
});
