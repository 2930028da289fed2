// Webhook verification against real deliveries: an endpoint registered through the client, a
// receiver on loopback, a payout's events; a genuine delivery verifies into its event, typed by its
// `type`, with one secret or several (a rotation); a tampered one (body, signature, secret) does not.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyWebhook, verifyWebhookEvent, WebhookVerificationError, type PayoutClient, type WebhookEvent } from '../../client/src/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, type Receiver, type Received } from '../support/receiver.ts';
import { eventually } from '../support/payouts.ts';
import { demoClient, newPayout } from '../support/client.ts';

let service: TestService;
let receiver: Receiver;
let client: PayoutClient;
let secret: string;
let delivery: Received;
let payoutId: string;

before(async () => {
  service = await startTestService({ WORKERS: '2', WEBHOOK_TIMEOUT_MS: '1000' });
  receiver = await startReceiver();
  client = demoClient(service.url);
  const endpoint = await client.webhookEndpoints.create({ url: receiver.url, eventTypes: ['payout.status_changed'] });
  secret = endpoint.secret;
  payoutId = (await client.payouts.create(newPayout())).payout.payoutId;
  await client.payouts.process(payoutId);
  const got = await eventually(
    async () => receiver.received.filter((r) => r.body.includes(payoutId) && r.body.includes('"PRCD"')),
    (list) => list.length > 0,
  );
  assert.ok(got[0], 'the PRCD event was delivered');
  delivery = got[0];
});
after(async () => {
  await service.stop();
  await receiver.close();
});

test('a real delivery verifies into its typed event', () => {
  const event = verifyWebhookEvent(delivery.body, delivery.headers, secret);
  assert.equal(event.type, 'payout.status_changed');
  assert.equal(event.data['payoutId'], payoutId);
  assert.equal(event.data['payoutStatus'], 'PRCD');
  assert.equal(event.data['eventId'], delivery.headers['webhook-id']);
  assert.ok(!Number.isNaN(Date.parse(event.timestamp)));
  // the same from fetch's Headers and from a raw byte body
  const viaHeaders = verifyWebhookEvent(new TextEncoder().encode(delivery.body), new Headers(delivery.headers), secret);
  assert.deepEqual(viaHeaders, event);
  assert.deepEqual(client.webhooks.verify(delivery.body, delivery.headers, secret), event);
  // the deprecated order of arguments still works until 1.0
  assert.deepEqual(verifyWebhook(secret, delivery.body, delivery.headers), event);
  assert.deepEqual(client.verifyWebhook(secret, delivery.body, delivery.headers), event);
});

test('a tampered body, a forged signature, another secret and missing headers are refused', () => {
  const tampered = delivery.body.replace('"PRCD"', '"RJCT"');
  assert.notEqual(tampered, delivery.body);
  assert.throws(() => verifyWebhookEvent(tampered, delivery.headers, secret), WebhookVerificationError);
  assert.throws(() => verifyWebhookEvent(`${delivery.body} `, delivery.headers, secret), WebhookVerificationError);
  const forged = { ...delivery.headers, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` };
  assert.throws(() => verifyWebhookEvent(delivery.body, forged, secret), WebhookVerificationError);
  const otherSecret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
  assert.throws(() => verifyWebhookEvent(delivery.body, delivery.headers, otherSecret), WebhookVerificationError);
  const { 'webhook-timestamp': _dropped, ...withoutTimestamp } = delivery.headers;
  assert.throws(() => verifyWebhookEvent(delivery.body, withoutTimestamp, secret), WebhookVerificationError);
});

const otherSecret = (fill: number) => `whsec_${Buffer.alloc(24, fill).toString('base64')}`;

/** What a receiver would do with an event, by its type (the compiler knows each type's data). */
function describe(event: WebhookEvent): string {
  switch (event.type) {
    case 'payout.status_changed':
      return `${event.data.payoutId} ${event.data.previousStatus ?? '-'} -> ${event.data.payoutStatus} #${event.data.sequence}`;
    case 'payout.cancellation_status_changed':
      return `${event.data.payoutId} cancellation ${event.data.payoutCancellationStatus ?? '-'}`;
    case 'payout.review_status_changed':
      return `${event.data.payoutId} review ${event.data.reviewStatus}`;
    case 'settlement.status_changed':
      return `${event.data.settlementId} ${event.data.settlementStatus}`;
    case 'settlement.review_opened':
      return `${event.data.settlementId} review of ${event.data.step} opened`;
    case 'settlement.review_resolved':
      return `${event.data.settlementId} review of ${event.data.step}: ${event.data.outcome}`;
  }
}

test('client.webhooks.verify takes the body, the headers and the secret, and the event narrows by type', () => {
  const event = client.webhooks.verify(delivery.body, delivery.headers, secret);
  assert.equal(event.type, 'payout.status_changed');
  assert.equal(describe(event), `${payoutId} ACCP -> PRCD #2`);
  assert.equal(event.data.eventId, delivery.headers['webhook-id']);
  assert.deepEqual(verifyWebhookEvent(delivery.body, delivery.headers, secret), event);
});

test('during a rotation several secrets are tried: the right one among others verifies, none right is refused', () => {
  const event = client.webhooks.verify(delivery.body, delivery.headers, [otherSecret(1), secret, otherSecret(2)]);
  assert.equal(event.data.eventId, delivery.headers['webhook-id']);
  assert.throws(() => client.webhooks.verify(delivery.body, delivery.headers, [otherSecret(1), otherSecret(2)]), WebhookVerificationError);
  const tampered = delivery.body.replace('"PRCD"', '"RJCT"');
  assert.throws(() => client.webhooks.verify(tampered, delivery.headers, [otherSecret(1), secret]), WebhookVerificationError);
  assert.throws(() => client.webhooks.verify(delivery.body, delivery.headers, []), RangeError);
  assert.throws(() => client.webhooks.verify(delivery.body, delivery.headers, Array.from({ length: 11 }, (_, i) => otherSecret(i))), RangeError);
});

test('webhookEndpoints: list, get and delete through the resource methods', async () => {
  const listed = await client.webhookEndpoints.list();
  const mine = listed.find((e) => e.url === receiver.url);
  assert.ok(mine, 'the endpoint made in before() is listed');
  const one = await client.webhookEndpoints.get(mine.webhookEndpointId);
  assert.equal(one.url, receiver.url);
  await client.webhookEndpoints.delete(mine.webhookEndpointId);
  await assert.rejects(client.webhookEndpoints.get(mine.webhookEndpointId), (error: unknown) => (error as { status?: number }).status === 404);
});
