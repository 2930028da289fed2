// One member's slow or dead endpoint does not hold up another member's deliveries: measured, with
// few delivery workers (4) so that, without the per-endpoint bound, the slow endpoint's backlog
// would take all of them for the whole receiver timeout.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO_2, token } from '../support/http.ts';
import { eventually, payoutApi, payoutBody } from '../support/payouts.ts';
import { deadUrl, registerEndpoint, startReceiver, type Receiver } from '../support/receiver.ts';

const TIMEOUT_MS = 3000;
const PER_ENDPOINT = 2;
let service: TestService;
let slow: Receiver;
let healthy: Receiver;

before(async () => {
  service = await startTestService({
    WORKERS: '1', WEBHOOK_WORKERS: '4', WEBHOOK_ENDPOINT_CONCURRENCY: String(PER_ENDPOINT), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  slow = await startReceiver();
  slow.answer = () => 'hang';
  healthy = await startReceiver();
});
after(async () => {
  await service.stop();
  await slow.close();
  await healthy.close();
});

const register = (url: string, accessToken: string) => registerEndpoint(service.url, accessToken, url, ['payout.status_changed']);

/** Creates payouts one after another and answers, for each, how long until its event reached the receiver. */
async function latencies(api: ReturnType<typeof payoutApi>, receiver: Receiver, count: number): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = Date.now();
    const payoutId = (await api.created(payoutBody('MX_SPEI')))['payoutId'] as string;
    const seen = () => receiver.received.find((r) => (JSON.parse(r.body) as { data: { payoutId?: string } }).data.payoutId === payoutId);
    await eventually(async () => seen(), (r) => r !== undefined, 15_000);
    result.push(seen()!.at - started);
  }
  return result;
}

test("a slow endpoint and a dead one of one member do not slow another member's deliveries", async (t) => {
  const memberA = await token(service.url, { scope: 'member' });
  const payoutsA = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
  const memberB = await token(service.url, { ...DEMO_2, scope: 'member' });
  const payoutsB = payoutApi(service.url, await token(service.url, { ...DEMO_2, scope: 'payouts' }));
  await register(healthy.url, memberB);
  const baseline = await latencies(payoutsB, healthy, 5);

  await register(slow.url, memberA);
  await register(await deadUrl(), memberA);
  const backlogStarted = Date.now();
  await Promise.all(Array.from({ length: 30 }, () => payoutsA.created(payoutBody('MX_SPEI'))));
  await eventually(async () => slow.received.length, (n) => n >= PER_ENDPOINT);
  const during = await latencies(payoutsB, healthy, 10);
  const inFlightAtOnce = slow.received.filter((r) => r.at - backlogStarted < TIMEOUT_MS - 500).length;

  const worst = (xs: number[]) => Math.max(...xs);
  t.diagnostic(`member B delivery latency: alone max ${worst(baseline)} ms; beside A's slow and dead endpoints max ${worst(during)} ms`);
  t.diagnostic(`requests the slow endpoint had in flight within its first timeout: ${inFlightAtOnce}`);
  assert.ok(inFlightAtOnce <= PER_ENDPOINT, `the slow endpoint had ${inFlightAtOnce} requests in flight at once`);
  // Without the bound, A's 30 hanging deliveries would hold all 4 workers for 3 s each before B's turn.
  assert.ok(worst(during) < TIMEOUT_MS / 2, `B waited ${worst(during)} ms beside A's backlog`);
  const { rows } = await service.db.query<{ status: string; n: number }>(
    `SELECT d.status, count(*)::int AS n FROM webhook_deliveries d WHERE d.member_id = 'DEMO_SOURCE_1' GROUP BY d.status`);
  assert.ok(rows.some((r) => r.status === 'PENDING' && r.n > 0), "A's deliveries are still being tried");
});
