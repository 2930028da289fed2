import { Type } from 'typebox';
import { EventTypeSchema } from '../events/schemas.ts';
import { EVENT_TYPES } from '../events/repo.ts';
import { SECRET_OVERLAP_SECONDS_DEFAULT, SECRET_OVERLAP_SECONDS_MAX } from './endpoints.ts';

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
      description: 'Extension: DISABLED once the endpoint answered 410 Gone or you disabled it; it then receives nothing until enabled (the events list still has everything)',
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

export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(CreateEndpointBody.properties.url),
    eventTypes: CreateEndpointBody.properties.eventTypes,
  },
  {
    additionalProperties: false, minProperties: 1,
    description: 'At least one of the two; what is left out stays as it is',
    examples: [{ url: 'https://hooks.example.com/v2/settlement-payouts' }],
  },
);

export const RotateSecretBody = Type.Object(
  {
    expiresInSeconds: Type.Optional(Type.Integer({
      minimum: 0, maximum: SECRET_OVERLAP_SECONDS_MAX,
      description: `How long the replaced secret goes on signing deliveries beside the new one: default ${SECRET_OVERLAP_SECONDS_DEFAULT} (24 h), at most ${SECRET_OVERLAP_SECONDS_MAX} (7 days), 0 stops it at once`,
    })),
  },
  { additionalProperties: false, examples: [{ expiresInSeconds: 3600 }] },
);

export const RotatedSecret = Type.Object(
  {
    ...WebhookEndpoint.properties,
    secret: Type.String({ description: 'The new secret, `whsec_` + base64 of 32 random bytes. Shown only in this answer; store it now' }),
    previousSecretExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Until when deliveries also carry a signature under the replaced secret; null when it stopped at once',
    }),
  },
  {
    additionalProperties: false,
    examples: [{ ...endpointExample, secret: 'whsec_Z3c0b1kq6H2m8Vw4pXyS9tRnE5uJ7aLdC1fG0hK2iO4=', previousSecretExpiresAt: '2026-11-22T10:00:00.000Z' }],
  },
);

export const TestEventQueued = Type.Object(
  {
    deliveryId: Type.String({ format: 'uuid', description: 'The delivery of the test event (an operator finds its attempts by it)' }),
    eventId: Type.String({ format: 'uuid', description: 'The test event\'s id: the `webhook-id` header and `data.eventId` your endpoint receives' }),
  },
  {
    additionalProperties: false,
    examples: [{ deliveryId: '0f9a4c2e-6b1d-4e8a-9c3f-5d7b2a1e8c60', eventId: '8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f' }],
  },
);
