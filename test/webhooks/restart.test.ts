// Deliveries are durable jobs: what was pending when the service stopped is delivered after it
// starts again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService } from '../support/service.ts';
import { bearer, json, token } from '../support/http.ts';
import { eventually, payoutApi, payoutBody } from '../support/payouts.ts';
import { registerEndpoint, startReceiver } from '../support/receiver.ts';

test('a stopped and restarted service still delivers what was pending', async () => {
  const receiver = await startReceiver();
  // first life: no delivery workers, so every delivery is still pending when it stops
  const first = await startTestService({ WORKERS: '1', WEBHOOK_WORKERS: '0' });
  let eventIds: string[];
  try {
    const member = await token(first.url, { scope: 'member' });
    await registerEndpoint(first.url, member, receiver.url);
    const payouts = payoutApi(first.url, await token(first.url, { scope: 'payouts' }));
    for (let i = 0; i < 5; i += 1) await payouts.process((await payouts.created(payoutBody('MX_SPEI')))['payoutId'] as string);
    const { rows } = await first.db.query<{ id: string; status: string }>(
      `SELECT e.event_key AS id, d.status FROM webhook_deliveries d JOIN events e ON e.event_id = d.event_id`);
    assert.equal(rows.length, 10);
    assert.ok(rows.every((r) => r.status === 'PENDING'));
    eventIds = rows.map((r) => r.id);
    assert.equal(receiver.received.length, 0);
  } finally {
    await first.stop();
  }
  const second = await startTestService({ DATA_DIR: first.dataDir, WORKERS: '1' });
  try {
    await eventually(async () => receiver.received.length, (n) => n >= 10);
    assert.deepEqual(receiver.received.map((r) => r.headers['webhook-id']).sort(), [...eventIds].sort());
    // the receiver has the requests a moment before the service has recorded its answers
    const succeeded = () => second.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'SUCCEEDED'`);
    assert.equal((await eventually(succeeded, (r) => r.rows[0]!.n === 10)).rows[0]!.n, 10);
    const listed = await json<{ events: unknown[] }>(await fetch(`${second.url}/v2/events`, { headers: bearer(await token(second.url, { scope: 'member' })) }));
    assert.equal(listed.events.length, 10);
  } finally {
    await second.stop();
    await receiver.close();
  }
});
