// GET /v2/settlements (filters, sorts, paging), GET /v2/settlement-context and the cancel extension.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO_2, bearer, json, token, expectError } from '../support/http.ts';
import { settlementApi, type Json } from '../support/settlements.ts';

let service: TestService;
let auth: string;
let other: string;
const ids: Record<string, string> = {};
type Page = { settlements: Json[]; page: number; size: number; totalPages: number; totalRecords: number };

const settle = (accessToken: string, destination: string, amount: number, executionInterval = 'IMMEDIATE') =>
  settlementApi(service.url, accessToken).settle(destination, { settlementAmt: amount, executionInterval });

before(async () => {
  service = await startTestService({ WORKERS: '0' });
  // the other member first, so that none of this test's data is its
  other = await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret, scope: 'settlements' });
  auth = await token(service.url, { scope: 'settlements' });
  // a known data set for the other demo member (the first one's settlements belong to no other test here)
  ids['mx300'] = String((await settle(other, 'PARTNER_MX', 300))['settlementId']);
  ids['br100'] = String((await settle(other, 'PARTNER_BR', 100, 'ONE_HOUR'))['settlementId']);
  ids['mx200'] = String((await settle(other, 'PARTNER_MX', 200, 'TWO_HOURS'))['settlementId']);
  ids['ng50'] = String((await settle(other, 'PARTNER_NG', 50))['settlementId']);
  await settle(auth, 'PARTNER_MX', 999);
});
after(async () => {
  await service.stop();
});

const list = async (query = '', accessToken = other) => json<Page>(await fetch(`${service.url}/v2/settlements?${query}`, { headers: bearer(accessToken) }));
const idsOf = (page: Page) => page.settlements.map((s) => Object.entries(ids).find(([, id]) => id === s['settlementId'])?.[0] ?? '?');

describe('the settlement list', () => {
  test('newest first by default, 10 a page, only the caller\'s', async () => {
    const page = await list();
    assert.deepEqual(idsOf(page), ['ng50', 'mx200', 'br100', 'mx300']);
    assert.deepEqual([page.page, page.size, page.totalPages, page.totalRecords], [0, 10, 1, 4]);
    assert.deepEqual(page.settlements[0], await json(await fetch(`${service.url}/v2/settlements/${ids['ng50']}`, { headers: bearer(other) })));
  });
  test('sorts by each field, in either direction, in any case', async () => {
    assert.deepEqual(idsOf(await list('sortField=settlementAmt&sortDirection=ASC')), ['ng50', 'br100', 'mx200', 'mx300']);
    assert.deepEqual(idsOf(await list('sortField=settlementAmt&sortDirection=desc')), ['mx300', 'mx200', 'br100', 'ng50']);
    assert.deepEqual(idsOf(await list('sortField=destinationMemberId&sortDirection=asc')), ['br100', 'mx300', 'mx200', 'ng50']);
    assert.deepEqual(idsOf(await list('sortField=settlementStatus&sortDirection=asc')), ['br100', 'mx200', 'mx300', 'ng50']);
    assert.deepEqual(idsOf(await list('sortField=destinationCcy&sortDirection=ASC')), ['br100', 'mx300', 'mx200', 'ng50']);
    assert.deepEqual(idsOf(await list('sortField=creationTime&sortDirection=asc')), ['mx300', 'br100', 'mx200', 'ng50']);
    const byRate = (await list('sortField=rate&sortDirection=asc')).settlements.map((s) => s['rate'] as number);
    assert.deepEqual(byRate, [...byRate].sort((a, b) => a - b));
    const byId = (await list('sortField=settlementId&sortDirection=asc')).settlements.map((s) => String(s['settlementId']));
    assert.deepEqual(byId, [...byId].sort());
    // nobody has completed: completionTime and settlementAmtReceived are all empty, ties by creationTime
    assert.deepEqual(idsOf(await list('sortField=completionTime&sortDirection=ASC')), ['mx300', 'br100', 'mx200', 'ng50']);
    assert.deepEqual(idsOf(await list('sortField=settlementAmtReceived')), ['ng50', 'mx200', 'br100', 'mx300']);
  });
  test('filters: destination member, status, created strictly after', async () => {
    assert.deepEqual(idsOf(await list('destinationMemberId=PARTNER_MX')), ['mx200', 'mx300']);
    assert.deepEqual(idsOf(await list('settlementStatus=S100_SCHEDULED')), ['mx200', 'br100']);
    assert.deepEqual(idsOf(await list('settlementStatus=S100_SCHEDULED&destinationMemberId=PARTNER_BR')), ['br100']);
    const br = await json(await fetch(`${service.url}/v2/settlements/${ids['br100']}`, { headers: bearer(other) }));
    assert.deepEqual(idsOf(await list(`createdAfter=${encodeURIComponent(String(br['creationTime']))}`)), ['ng50', 'mx200']);
    assert.deepEqual(idsOf(await list('createdAfter=2000-01-01T00:00:00Z')).length, 4, 'RFC 3339 without fractional seconds');
    // a leap second is RFC 3339 too (it was a 500): the instant it ends
    assert.equal(idsOf(await list('createdAfter=2017-01-01T00:59:60%2B01:00')).length, 4, 'a leap second in the past (23:59:60 UTC)');
    assert.equal(idsOf(await list('createdAfter=2999-06-30T23:59:60.5Z')).length, 0, 'a leap second in the future');
    assert.equal((await list('settlementStatus=S600_COMPLETED')).totalRecords, 0);
  });
  test('pages: size, page, a page past the end is empty with the right totals', async () => {
    const first = await list('size=3&sortField=settlementAmt&sortDirection=asc');
    assert.deepEqual(idsOf(first), ['ng50', 'br100', 'mx200']);
    assert.deepEqual([first.totalPages, first.totalRecords], [2, 4]);
    assert.deepEqual(idsOf(await list('size=3&page=1&sortField=settlementAmt&sortDirection=asc')), ['mx300']);
    const past = await list('size=3&page=5');
    assert.deepEqual([past.settlements.length, past.page, past.totalPages, past.totalRecords], [0, 5, 2, 4]);
  });
  test('bad parameters: 400 naming them', async () => {
    for (const [query, field] of [['size=0', 'size'], ['size=101', 'size'], ['page=-1', 'page'], ['sortField=fee', 'sortField'],
      ['sortDirection=up', 'sortDirection'], ['settlementStatus=DONE', 'settlementStatus'], ['createdAfter=yesterday', 'createdAfter'],
      ['destinationMemberId=mx', 'destinationMemberId'], ['colour=red', 'colour']] as const) {
      await expectError(await fetch(`${service.url}/v2/settlements?${query}`, { headers: bearer(other) }), 400, 'VALIDATION_ERROR', new RegExp(field));
    }
  });
});

describe('the settlement context', () => {
  test('every corridor with its maximum and what is in flight on it', async () => {
    const context = await json<{ sourceMemberId: string; sourceCcy: string; corridors: Json[] }>(
      await fetch(`${service.url}/v2/settlement-context`, { headers: bearer(other) }));
    assert.equal(context.sourceMemberId, DEMO_2.memberId);
    assert.equal(context.sourceCcy, 'USD');
    const byMember = Object.fromEntries(context.corridors.map((c) => [String(c['destinationMemberId']), c]));
    assert.deepEqual(byMember['PARTNER_MX'], { destinationMemberId: 'PARTNER_MX', destinationCcy: 'MXN', active: true, maxSettlementAmt: 500000, inFlightAmt: 500 });
    assert.deepEqual(byMember['PARTNER_BR'], { destinationMemberId: 'PARTNER_BR', destinationCcy: 'BRL', active: true, maxSettlementAmt: 250000, inFlightAmt: 100 });
    assert.deepEqual(byMember['PARTNER_GH'], { destinationMemberId: 'PARTNER_GH', destinationCcy: 'GHS', active: false, maxSettlementAmt: 50000, inFlightAmt: 0 });
    assert.equal(byMember['PARTNER_KE']!['inFlightAmt'], 0);
  });
});

describe('cancel (extension)', () => {
  test('a scheduled settlement: 202 S500_TERMINATED, nothing in flight, its start job gone; then 409', async () => {
    const created = await settle(auth, 'PARTNER_KE', 75, 'SIX_HOURS');
    const id = String(created['settlementId']);
    const cancel = () => fetch(`${service.url}/v2/settlements/${id}/cancel`, { method: 'POST', headers: bearer(auth) });
    const response = await cancel();
    assert.equal(response.status, 202);
    const record = await json(response);
    assert.deepEqual([record['settlementStatus'], record['pendingAmt'], record['completionTime']], ['S500_TERMINATED', 0, null]);
    const jobs = await service.db.query(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = $1`, [`settlement:${id}`]);
    assert.equal(jobs.rows[0].n, 0);
    const { rows } = await service.db.query(`SELECT data->>'settlementStatus' AS s FROM events WHERE resource_id = $1 ORDER BY sequence`, [id]);
    assert.deepEqual(rows.map((r) => r.s), ['S100_SCHEDULED', 'S500_TERMINATED']);
    await expectError(await cancel(), 409, 'INVALID_STATE', /S500_TERMINATED/);
  });
  test('an immediate settlement: 409 INVALID_STATE; another member\'s or unknown: 404', async () => {
    const id = String((await settle(auth, 'PARTNER_KE', 80))['settlementId']);
    await expectError(await fetch(`${service.url}/v2/settlements/${id}/cancel`, { method: 'POST', headers: bearer(auth) }), 409, 'INVALID_STATE', /S200_RECEIVED/);
    await expectError(await fetch(`${service.url}/v2/settlements/${ids['br100']}/cancel`, { method: 'POST', headers: bearer(auth) }), 404, 'NOT_FOUND');
    await expectError(await fetch(`${service.url}/v2/settlements/nope/cancel`, { method: 'POST', headers: bearer(auth) }), 404, 'NOT_FOUND');
  });
});
