// verifyWebhook against real deliveries: an endpoint registered through the client, a receiver on
// loopback, a payout's events; a genuine delivery verifies into its typed event, a tampered one
// (body, signature, secret) does not.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyWebhook, WebhookVerificationError, type PayoutClient } from '../../client/src/index.ts';
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
  const { data: endpoint } = await client.POST('/v2/webhook-endpoints', { body: { url: receiver.url, eventTypes: ['payout.status_changed'] } });
  assert.ok(endpoint);
  secret = endpoint.secret;
  payoutId = (await client.createPayout(newPayout())).payoutId;
  await client.POST('/v2/payouts/{payoutId}/process', { params: { path: { payoutId } } });
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
  const event = verifyWebhook(secret, delivery.body, delivery.headers);
  assert.equal(event.type, 'payout.status_changed');
  assert.equal(event.data['payoutId'], payoutId);
  assert.equal(event.data['payoutStatus'], 'PRCD');
  assert.equal(event.data['eventId'], delivery.headers['webhook-id']);
  assert.ok(!Number.isNaN(Date.parse(event.timestamp)));
  // the same from fetch's Headers and from a raw byte body
  const viaHeaders = verifyWebhook(secret, new TextEncoder().encode(delivery.body), new Headers(delivery.headers));
  assert.deepEqual(viaHeaders, event);
  assert.deepEqual(client.verifyWebhook(secret, delivery.body, delivery.headers), event);
});

test('a tampered body, a forged signature, another secret and missing headers are refused', () => {
  const tampered = delivery.body.replace('"PRCD"', '"RJCT"');
  assert.notEqual(tampered, delivery.body);
  assert.throws(() => verifyWebhook(secret, tampered, delivery.headers), WebhookVerificationError);
  assert.throws(() => verifyWebhook(secret, `${delivery.body} `, delivery.headers), WebhookVerificationError);
  const forged = { ...delivery.headers, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` };
  assert.throws(() => verifyWebhook(secret, delivery.body, forged), WebhookVerificationError);
  const otherSecret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
  assert.throws(() => verifyWebhook(otherSecret, delivery.body, delivery.headers), WebhookVerificationError);
  const { 'webhook-timestamp': _dropped, ...withoutTimestamp } = delivery.headers;
  assert.throws(() => verifyWebhook(secret, delivery.body, withoutTimestamp), WebhookVerificationError);
});
