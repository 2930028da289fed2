// GET /v2/events: oldest first, paged by the last eventId, never skipping an event whose
// transaction commits late, only the caller's own events; and the retention purge.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO, DEMO_2, bearer, expectError, json, token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { insertEvents } from '../../src/events/repo.ts';
import { purgeEventsTask } from '../../src/events/service.ts';
import { systemClock } from '../../src/platform/clock.ts';
import type { JobHelpers } from 'graphile-worker';

let service: TestService;
let member: string;
let payouts: ReturnType<typeof payoutApi>;
before(async () => {
  // the concurrent-writers test makes more requests than the default per-client limit allows
  service = await startTestService({ WORKERS: '0', WEBHOOK_WORKERS: '0', RATE_LIMIT_PER_MINUTE: '100000' });
  member = await token(service.url, { scope: 'member' });
  payouts = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
});
after(async () => {
  await service.stop();
});

type Page = { events: Array<{ eventId: string; type: string; timestamp: string; data: Record<string, unknown> }>; nextAfter: string | null };

const list = (query = '', accessToken = member) => fetch(`${service.url}/v2/events${query}`, { headers: bearer(accessToken) });
const page = async (query = '', accessToken = member) => {
  const response = await list(query, accessToken);
  assert.equal(response.status, 200);
  return json<Page>(response);
};

async function all(limit: number, accessToken = member, from?: string): Promise<{ ids: string[]; last: string | null }> {
  const ids: string[] = [];
  let after = from ?? null;
  for (;;) {
    const p = await page(`?limit=${limit}${after ? `&after=${after}` : ''}`, accessToken);
    ids.push(...p.events.map((e) => e.eventId));
    if (p.events.length === 0) return { ids, last: after };
    assert.equal(p.nextAfter, p.events.at(-1)!.eventId);
    after = p.nextAfter;
  }
}

async function memberEventIds(memberId: string): Promise<string[]> {
  const { rows } = await service.db.query<{ id: string }>('SELECT event_key AS id FROM events WHERE member_id = $1', [memberId]);
  return rows.map((r) => r.id);
}

test('pages oldest first without gaps or repeats while new events are being written', async () => {
  let writing = true;
  const writers = Array.from({ length: 4 }, async () => {
    while (writing) {
      const created = await payouts.created(payoutBody('MX_SPEI'));
      await payouts.process(created['payoutId'] as string);
    }
  });
  const seen: string[] = [];
  let after: string | null = null;
  const until = Date.now() + 3000;
  while (Date.now() < until) {
    const p = await page(`?limit=7${after ? `&after=${after}` : ''}`);
    seen.push(...p.events.map((e) => e.eventId));
    after = p.nextAfter;
  }
  writing = false;
  await Promise.all(writers);
  const rest = await all(7, member, after ?? undefined);
  seen.push(...rest.ids);
  const expected = await memberEventIds(DEMO.memberId);
  assert.ok(expected.length > 20, 'the writers wrote while the pages were read');
  assert.equal(new Set(seen).size, seen.length, 'no event twice');
  assert.deepEqual([...seen].sort(), [...expected].sort(), 'every event of the member, none of anyone else');
});

test('each resource appears in the order of its changes, with the body the webhooks carry', async () => {
  const created = await payouts.created(payoutBody('MX_SPEI'));
  const payoutId = created['payoutId'] as string;
  await payouts.process(payoutId);
  const { ids } = await all(100);
  const p = await page(`?limit=100&after=${ids.at(-10)}`);
  const mine = p.events.filter((e) => e.data['payoutId'] === payoutId);
  assert.deepEqual(mine.map((e) => e.data['sequence']), [1, 2]);
  assert.deepEqual(mine.map((e) => e.data['payoutStatus']), ['ACCP', 'PRCD']);
  for (const e of mine) {
    assert.equal(e.type, 'payout.status_changed');
    assert.equal(e.data['eventId'], e.eventId);
    assert.match(e.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(e.data['sourceMemberPayoutId'], created['sourceMemberPayoutId']);
  }
});

test('an event whose transaction commits late is not passed over by a reader that paged meanwhile', async () => {
  const late = await service.db.connect();
  try {
    await late.query('BEGIN');
    await insertEvents(late, [{ memberId: DEMO.memberId, type: 'payout.status_changed', resourceId: 'late-writer', sequence: 1, data: { payoutId: 'late-writer' } }]);
    // a later transaction commits first
    await insertEvents(service.db, [{ memberId: DEMO.memberId, type: 'payout.status_changed', resourceId: 'early-writer', sequence: 1, data: { payoutId: 'early-writer' } }]);
    const before = await all(100);
    const { rows } = await service.db.query<{ id: string }>(`SELECT event_key AS id FROM events WHERE resource_id = 'early-writer'`);
    assert.ok(!before.ids.includes(rows[0]!.id), 'not listed while an older transaction is still open');
    await late.query('COMMIT');
    const afterCommit = await all(100, member, before.last ?? undefined);
    const { rows: both } = await service.db.query<{ id: string; resource: string }>(
      `SELECT event_key AS id, resource_id AS resource FROM events WHERE resource_id IN ('late-writer', 'early-writer')`);
    const byResource = Object.fromEntries(both.map((r) => [r.resource, r.id]));
    assert.deepEqual(afterCommit.ids, [byResource['late-writer'], byResource['early-writer']]);
  } finally {
    late.release();
  }
});

test("another member sees none of this member's events, and cannot page from one of them", async () => {
  const other = await token(service.url, { ...DEMO_2, scope: 'member' });
  const otherPayouts = payoutApi(service.url, await token(service.url, { ...DEMO_2, scope: 'payouts' }));
  await otherPayouts.created(payoutBody('MX_SPEI'));
  const theirs = await all(100, other);
  assert.deepEqual([...theirs.ids].sort(), [...(await memberEventIds(DEMO_2.memberId))].sort());
  const mine = await memberEventIds(DEMO.memberId);
  assert.ok(theirs.ids.every((id) => !mine.includes(id)));
  await expectError(await list(`?after=${mine[0]}`, other), 400, 'VALIDATION_ERROR', /^after: not one of your events$/);
});

test('an empty page keeps the cursor; bad cursors and limits are 400', async () => {
  const { last } = await all(100);
  const empty = await page(`?after=${last}`);
  assert.deepEqual(empty, { events: [], nextAfter: last });
  assert.equal((await page('?limit=1')).events.length, 1);
  await expectError(await list('?after=00000000-0000-4000-8000-000000000000'), 400, 'VALIDATION_ERROR', /^after: not one of your events$/);
  await expectError(await list('?after=not-a-uuid'), 400, 'VALIDATION_ERROR', /^after/);
  await expectError(await list('?limit=0'), 400, 'VALIDATION_ERROR', /limit/);
  await expectError(await list('?limit=101'), 400, 'VALIDATION_ERROR', /limit/);
  await expectError(await list('?color=red'), 400, 'VALIDATION_ERROR', /color/);
  const payoutsOnly = await token(service.url, { scope: 'payouts' });
  await expectError(await list('', payoutsOnly), 403, 'INSUFFICIENT_SCOPE');
  await expectError(await fetch(`${service.url}/v2/events`), 401, 'UNAUTHORIZED');
});

test('the daily purge forgets events older than 30 days, and only those', async () => {
  await insertEvents(service.db, [{ memberId: DEMO.memberId, type: 'payout.status_changed', resourceId: 'old-one', sequence: 1, data: {} }]);
  await service.db.query(`UPDATE events SET created_at = now() - interval '31 days' WHERE resource_id = 'old-one'`);
  await insertEvents(service.db, [{ memberId: DEMO.memberId, type: 'payout.status_changed', resourceId: 'recent-one', sequence: 1, data: {} }]);
  await service.db.query(`UPDATE events SET created_at = now() - interval '29 days' WHERE resource_id = 'recent-one'`);
  const logged: string[] = [];
  await purgeEventsTask(service.db, systemClock)({}, { logger: { info: (m: string) => logged.push(m) } } as unknown as JobHelpers);
  const { rows } = await service.db.query<{ resource: string }>(`SELECT resource_id AS resource FROM events WHERE resource_id IN ('old-one', 'recent-one')`);
  assert.deepEqual(rows.map((r) => r.resource), ['recent-one']);
  assert.deepEqual(logged, ['purged 1 events older than 30 days']);
});
