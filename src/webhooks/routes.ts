// Webhook endpoints (scope member, CONTRACT section 6).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ApiError, errorResponses, type ErrorCode } from '../platform/http/errors.ts';
import { memberOf } from '../auth/plugin.ts';
import type { EventType } from '../events/repo.ts';
import type { EndpointError, EndpointsService } from './endpoints.ts';
import { CreateEndpointBody, EndpointParams, WebhookEndpoint, WebhookEndpointList, WebhookEndpointWithSecret } from './schemas.ts';

const ERRORS: Record<EndpointError, [ErrorCode, string]> = {
  INVALID_URL: ['VALIDATION_ERROR', 'The endpoint URL is not allowed.'],
  TOO_MANY_ENDPOINTS: ['INVALID_STATE', 'You have as many webhook endpoints as allowed.'],
  UNKNOWN_ENDPOINT: ['NOT_FOUND', 'No such webhook endpoint.'],
};

const refusal = (error: EndpointError, detail: string) => new ApiError(ERRORS[error][0], ERRORS[error][1], detail);

export async function webhookRoutes(app: FastifyInstance, opts: { endpoints: EndpointsService }) {
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
    const result = await opts.endpoints.create(memberOf(request).memberId, request.body as { url: string; eventTypes?: EventType[] });
    if (!result.ok) throw refusal(result.error, result.detail);
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
    const { webhookEndpointId } = request.params as { webhookEndpointId: string };
    const result = await opts.endpoints.get(memberOf(request).memberId, webhookEndpointId);
    if (!result.ok) throw refusal(result.error, result.detail);
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
    const { webhookEndpointId } = request.params as { webhookEndpointId: string };
    const result = await opts.endpoints.remove(memberOf(request).memberId, webhookEndpointId);
    if (!result.ok) throw refusal(result.error, result.detail);
    return reply.code(204).send();
  });
}
