import { Type, type TSchema } from 'typebox';
import { PayoutCancellationStatusChangedData, PayoutReviewStatusChangedData, PayoutStatusChangedData } from '../payouts/event-schemas.ts';
import { SettlementStatusChangedData } from '../settlements/schemas.ts';
import { SettlementReviewOpenedData, SettlementReviewResolvedData } from '../settlements/event-schemas.ts';
import { StringEnum } from '../platform/schema.ts';
import { EVENT_TYPES, type EventType } from './repo.ts';
import { EVENTS_PAGE_SIZE_DEFAULT, EVENTS_PAGE_SIZE_MAX } from './service.ts';

export const EventTypeSchema = StringEnum(EVENT_TYPES);

const eventExample = {
  eventId: '7d0b3c1e-5a4f-4b8e-9a51-3f1c2e8d6b40',
  type: 'payout.status_changed',
  timestamp: '2026-11-21T10:00:00.412Z',
  data: {
    payoutId: '0b8f8a4e-6f1d-4c1a-9d43-2a7c5e9b1f20', sourceMemberPayoutId: 'inv-20261121-0042', payoutStatus: 'PRCD',
    previousStatus: 'PNDG', eventId: '7d0b3c1e-5a4f-4b8e-9a51-3f1c2e8d6b40', sequence: 3,
  },
};

const EVENT_DOCS: Record<EventType, { name: string; data: TSchema; summary: string }> = {
  'payout.status_changed': { name: 'PayoutStatusChanged', data: PayoutStatusChangedData, summary: 'A payout was created or changed payoutStatus' },
  'payout.cancellation_status_changed': {
    name: 'PayoutCancellationStatusChanged', data: PayoutCancellationStatusChangedData, summary: 'A payout\'s cancellation was asked for, done or refused',
  },
  'payout.review_status_changed': {
    name: 'PayoutReviewStatusChanged', data: PayoutReviewStatusChangedData,
    summary: 'Our operators opened or resolved a review of a payout whose outcome at the partner could not be established automatically (its funds stay reserved meanwhile)',
  },
  'settlement.status_changed': { name: 'SettlementStatusChanged', data: SettlementStatusChangedData, summary: 'A settlement was created or changed settlementStatus' },
  'settlement.review_opened': {
    name: 'SettlementReviewOpened', data: SettlementReviewOpenedData,
    summary: 'A settlement step\'s outcome could not be established automatically: our operators review it; the settlement keeps its status meanwhile',
  },
  'settlement.review_resolved': {
    name: 'SettlementReviewResolved', data: SettlementReviewResolvedData,
    summary: 'Our operators resolved a settlement\'s review: it goes on (MOVED) or fails with its funds returned (NOT_MOVED)',
  },
};

const eventId = Type.String({ format: 'uuid', description: 'Also the `webhook-id` of its webhook deliveries' });
const timestamp = Type.String({ format: 'date-time', description: 'When the change happened' });
const dataId = (type: EventType) => String((EVENT_DOCS[type].data as { $id?: string }).$id);

/** One record per event type: what the events list answers. */
const eventVariants = EVENT_TYPES.map((type) => Type.Object(
  { eventId, type: Type.Literal(type), timestamp, data: Type.Ref(dataId(type)) },
  { $id: `${EVENT_DOCS[type].name}Event`, additionalProperties: false, description: EVENT_DOCS[type].summary },
));

/** One body per event type: what a webhook delivery posts (its id is the webhook-id header). */
const webhookPayloads = EVENT_TYPES.map((type) => Type.Object(
  { type: Type.Literal(type), timestamp, data: Type.Ref(dataId(type)) },
  { $id: `${EVENT_DOCS[type].name}Webhook`, additionalProperties: false, description: EVENT_DOCS[type].summary },
));

/**
 * The event record as the events list writes it: `data` is written as stored, whatever its type,
 * so that an event of a type or shape this process does not know (written by a newer version
 * during a rolling deploy, or by an older one) never fails the list. The document shows the
 * typed union instead (documentedEvent); test/events/typed.test.ts checks that real events
 * match it.
 */
export const EventRecord = Type.Object(
  {
    eventId,
    type: Type.String({ maxLength: 64, description: `The event type: ${EVENT_TYPES.join(', ')}; new types may be added` }),
    timestamp,
    data: Type.Object({}, { additionalProperties: true }),
  },
  { $id: 'Event', additionalProperties: false, examples: [eventExample] },
);

/** What the document says an event is: one typed record per event type, discriminated by `type`. */
export function documentedEvent(): Record<string, unknown> {
  return {
    description: 'An event: its `type` says which `data` it carries. New types may be added: ignore the ones you do not know.',
    oneOf: EVENT_TYPES.map((t) => ({ $ref: `#/components/schemas/${EVENT_DOCS[t].name}Event` })),
    discriminator: { propertyName: 'type', mapping: Object.fromEntries(EVENT_TYPES.map((t) => [t, `#/components/schemas/${EVENT_DOCS[t].name}Event`])) },
    examples: [eventExample],
  };
}

/** Every schema of the events, for the application to register (they are referenced by id). */
export const EVENT_SCHEMAS: TSchema[] = [...EVENT_TYPES.map((t) => EVENT_DOCS[t].data), ...eventVariants, ...webhookPayloads, EventRecord];

/** The typed schemas by id, for tests that check real events against the document. */
export const TYPED_EVENT_SCHEMAS = { variants: eventVariants, payloads: webhookPayloads, data: EVENT_TYPES.map((t) => EVENT_DOCS[t].data) };

/** The OpenAPI `webhooks` section: one entry per event type, the body a delivery posts. */
export function webhookOperations(): Record<string, unknown> {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, {
    post: {
      operationId: `on${EVENT_DOCS[type].name}`,
      summary: EVENT_DOCS[type].summary,
      description:
        'Signed as Standard Webhooks specifies (`webhook-id`: the eventId, the same on every retry; `webhook-timestamp`; `webhook-signature`). ' +
        'Answer 2xx within 10 s; anything else is retried (about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h); 410 disables the endpoint.',
      tags: ['Notifications'],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${EVENT_DOCS[type].name}Webhook` } } } },
      responses: { '2XX': { description: 'Received: no retry' }, '410': { description: 'Gone: the endpoint is disabled' } },
    },
  }]));
}

export const EventListQuery = Type.Object(
  {
    after: Type.Optional(Type.String({ maxLength: 64, description: 'The last eventId you have; leave out to start from the oldest kept event' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: EVENTS_PAGE_SIZE_MAX, default: EVENTS_PAGE_SIZE_DEFAULT })),
  },
  { additionalProperties: false },
);

export const EventList = Type.Object(
  {
    events: Type.Array(Type.Ref('Event')),
    nextAfter: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `after` for the next page. An empty page keeps it unchanged: ask again later with the same value.',
    }),
  },
  { additionalProperties: false, examples: [{ events: [eventExample], nextAfter: eventExample.eventId }] },
);
