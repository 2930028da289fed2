// Webhook endpoints (scope member, CONTRACT section 6).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../platform/http/errors.ts';
import { refusalError } from '../platform/http/refusals.ts';
import { noContent, typed } from '../platform/http/typed.ts';
import { memberOf } from '../auth/plugin.ts';
import type { EndpointsService } from './endpoints.ts';
import { ENDPOINT_REFUSALS } from './errors.ts';
import {
  CreateEndpointBody, EndpointParams, RotatedSecret, RotateSecretBody, TestEventQueued, UpdateEndpointBody, WebhookEndpoint, WebhookEndpointList,
  WebhookEndpointWithSecret,
} from './schemas.ts';
import { TEST_EVENTS_PER_MINUTE_MAX } from './endpoints.ts';

export async function webhookRoutes(fastify: FastifyInstance, opts: { endpoints: EndpointsService }) {
  const app = typed(fastify);
  const tags = ['Notifications'];

  app.post('/v2/webhook-endpoints', {
    config: { scope: 'member' },
    schema: {
      summary: 'Register a webhook endpoint',
      description:
        'Events of the chosen types (default all) are posted to `url`, signed as Standard Webhooks specifies (`webhook-id` = the ' +
        'eventId, `webhook-timestamp`, `webhook-signature` = `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the secret). ' +
        'A 2xx within 10 s is success; anything else is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and ' +
        '24 h (with jitter), then the delivery fails. 410 Gone disables the endpoint. Delivery is at least once and not in ' +
        'order: drop duplicates by `webhook-id` and stale updates by `data.sequence`. The secret is shown only in this answer.',
      tags,
      body: CreateEndpointBody,
      response: { 201: WebhookEndpointWithSecret, ...errorResponses(400, 409, 413, 415) },
    },
  }, async (request, reply) => {
    const result = await opts.endpoints.create(memberOf(request).memberId, request.body);
    if (!result.ok) throw refusalError(ENDPOINT_REFUSALS, result);
    reply.code(201).header('location', `/v2/webhook-endpoints/${result.value.endpoint.webhookEndpointId}`);
    return { ...result.value.endpoint, secret: result.value.secret };
  });

  app.get('/v2/webhook-endpoints', {
    config: { scope: 'member' },
    schema: {
      summary: 'List your webhook endpoints',
      description: 'Your endpoints that are not deleted, oldest first, without their secrets.',
      tags,
      response: { 200: WebhookEndpointList },
    },
  }, async (request) => opts.endpoints.list(memberOf(request).memberId));

  app.get('/v2/webhook-endpoints/:webhookEndpointId', {
    config: { scope: 'member' },
    schema: {
      summary: 'Get a webhook endpoint (extension)',
      description: 'One of your endpoints, without its secret; a deleted one, or another member\'s, is 404.',
      tags,
      params: EndpointParams,
      response: { 200: WebhookEndpoint, ...errorResponses(400, 404) },
    },
  }, async (request) => {
    const { webhookEndpointId } = request.params;
    const result = await opts.endpoints.get(memberOf(request).memberId, webhookEndpointId);
    if (!result.ok) throw refusalError(ENDPOINT_REFUSALS, result);
    return result.value;
  });

  app.delete('/v2/webhook-endpoints/:webhookEndpointId', {
    config: { scope: 'member' },
    schema: {
      summary: 'Delete a webhook endpoint',
      description: 'It receives nothing more; deliveries still pending for it end without another attempt.',
      tags,
      params: EndpointParams,
      response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(400, 404) },
    },
  }, async (request, reply) => {
    const { webhookEndpointId } = request.params;
    const result = await opts.endpoints.remove(memberOf(request).memberId, webhookEndpointId);
    if (!result.ok) throw refusalError(ENDPOINT_REFUSALS, result);
    return noContent(reply);
  });

  app.patch('/v2/webhook-endpoints/:webhookEndpointId', {
    config: { scope: 'member' },
    schema: {
      summary: 'Update a webhook endpoint (extension)',
      description:
        'A new `url` (the same policy as at registration) and/or new `eventTypes`; at least one. Deliveries still pending, ' +
        'retries included, go to the new URL. The secret and the status are unchanged.',
      tags,
      params: EndpointParams,
      body: UpdateEndpointBody,
      response: { 200: WebhookEndpoint, ...errorResponses(400, 404, 413, 415) },
    },
  }, async (request) => {
    const { webhookEndpointId } = request.params;
    const result = await opts.endpoints.update(memberOf(request).memberId, webhookEndpointId, request.body);
    if (!result.ok) throw refusalError(ENDPOINT_REFUSALS, result);
    return result.value;
  });

  app.post('/v2/webhook-endpoints/:webhookEndpointId/test', {
    config: { scope: 'member' },
    schema: {
      summary: 'Send a test event to a webhook endpoint (extension)',
      description:
        'Queues one `webhook.test` event for this endpoint only, delivered, signed and retried like any other (`data` carries ' +
        '`webhookEndpointId`, `message`, `eventId` and `sequence` 1). It is not in the events list. The endpoint must be ENABLED ' +
        `(else 409 INVALID_STATE); at most ${TEST_EVENTS_PER_MINUTE_MAX} a minute per endpoint (else 429 RATE_LIMITED with Retry-After).`,
      tags,
      params: EndpointParams,
      response: { 202: TestEventQueued, ...errorResponses(400, 404, 409, 429) },
    },
  }, async (request, reply) => {
    const { webhookEndpointId } = request.params;
    const result = await opts.endpoints.sendTest(memberOf(request).memberId, webhookEndpointId);
    if (!result.ok) throw refusalError(ENDPOINT_REFUSALS, result);
    return reply.code(202).send(result.value);
  });

  app.post('/v2/webhook-endpoints/:webhookEndpointId/rotate-secret', {
    config: { scope: 'member' },
    schema: {
      summary: 'Rotate a webhook endpoint secret (extension)',
      description:
        'A new secret, shown only in this answer. Until `previousSecretExpiresAt` every delivery carries two signatures in ' +
        '`webhook-signature`, space-separated, the new secret\'s first; then only the new one. Rotating again during an overlap ' +
        'drops the oldest secret at once. The body is optional.',
      tags,
      params: EndpointParams,
      body: RotateSecretBody,
      response: { 200: RotatedSecret, ...errorResponses(400, 404, 413, 415) },
    },
    // the body is optional: none is read as {} (every default)
    preValidation: async (request) => {
      request.body ??= {};
    },
  }, async (request) => {
    const { webhookEndpointId } = request.params;
    const result = await opts.endpoints.rotateSecret(memberOf(request).memberId, webhookEndpointId, request.body.expiresInSeconds);
    if (!result.ok) throw refusalError(ENDPOINT_REFUSALS, result);
    return { ...result.value.endpoint, secret: result.value.secret, previousSecretExpiresAt: result.value.previousSecretExpiresAt };
  });

  for (const [action, to, summary, description] of [
    ['enable', 'ENABLED', 'Enable a webhook endpoint (extension)',
      'After a 410 Gone or a disable: new events are delivered again and the circuit is closed. Deliveries that failed or were ' +
      'dropped meanwhile are not resent: read them from the events list (or ask an operator to redeliver). Enabling an enabled ' +
      'endpoint changes nothing.'],
    ['disable', 'DISABLED', 'Disable a webhook endpoint (extension)',
      'Pauses it: new events are not delivered to it and its pending deliveries end without another attempt (the events list ' +
      'still has everything). Disabling a disabled endpoint changes nothing.'],
  ] as const) {
    app.post(`/v2/webhook-endpoints/:webhookEndpointId/${action}`, {
      config: { scope: 'member' },
      schema: { summary, description, tags, params: EndpointParams, response: { 200: WebhookEndpoint, ...errorResponses(400, 404) } },
    }, async (request) => {
      const { webhookEndpointId } = request.params;
      const result = await opts.endpoints.setStatus(memberOf(request).memberId, webhookEndpointId, to);
      if (!result.ok) throw refusalError(ENDPOINT_REFUSALS, result);
      return result.value;
    });
  }
}
