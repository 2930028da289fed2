import { Type } from 'typebox';
import { EventTypeSchema } from '../events/schemas.ts';
import { EVENT_TYPES } from '../events/repo.ts';

const endpointExample = {
  webhookEndpointId: '5b0e7c9a-2d41-4f3b-8c6e-1a9d3f7b2e50',
  url: 'https://hooks.example.com/settlement-payouts',
  eventTypes: ['payout.status_changed', 'settlement.status_changed'],
  creationTime: '2026-11-21T10:00:00.000Z',
  status: 'ENABLED',
  statusReason: null,
};

export const CreateEndpointBody = Type.Object(
  {
    url: Type.String({
      minLength: 1, maxLength: 2048,
      description: 'https (production refuses addresses in private, loopback and link-local ranges); sandbox also accepts http to localhost',
    }),
    eventTypes: Type.Optional(Type.Array(EventTypeSchema, {
      minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true, description: 'The event types to receive; default all',
    })),
  },
  { additionalProperties: false, examples: [{ url: endpointExample.url, eventTypes: endpointExample.eventTypes }] },
);

export const WebhookEndpoint = Type.Object(
  {
    webhookEndpointId: Type.String({ format: 'uuid' }),
    url: Type.String(),
    eventTypes: Type.Array(EventTypeSchema),
    creationTime: Type.String({ format: 'date-time' }),
    status: Type.Union([Type.Literal('ENABLED'), Type.Literal('DISABLED')], {
      description: 'Extension: DISABLED once the endpoint answered 410 Gone; it then receives nothing (the events list still has everything)',
    }),
    statusReason: Type.Union([Type.String(), Type.Null()], { description: 'Extension: why the endpoint is disabled' }),
  },
  { additionalProperties: false, examples: [endpointExample] },
);

export const WebhookEndpointList = Type.Array(WebhookEndpoint, { examples: [[endpointExample]] });

export const WebhookEndpointWithSecret = Type.Object(
  {
    ...WebhookEndpoint.properties,
    secret: Type.String({ description: '`whsec_` + base64 of 32 random bytes. Shown only in this answer; store it now' }),
  },
  { additionalProperties: false, examples: [{ ...endpointExample, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8YOzC5j0R3c=' }] },
);

export const EndpointParams = Type.Object(
  { webhookEndpointId: Type.String({ maxLength: 64 }) },
  { additionalProperties: false },
);
