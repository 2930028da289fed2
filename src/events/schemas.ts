import { Type } from 'typebox';
import { StringEnum } from '../platform/schema.ts';
import { EVENT_TYPES } from './repo.ts';
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

export const EventRecord = Type.Object(
  {
    eventId: Type.String({ format: 'uuid', description: 'Also the `webhook-id` of its webhook deliveries' }),
    type: EventTypeSchema,
    timestamp: Type.String({ format: 'date-time', description: 'When the change happened' }),
    data: Type.Object({}, {
      additionalProperties: true,
      description:
        'payout events: the payout status response plus payoutId, sourceMemberPayoutId and previousStatus; settlement events: the ' +
        'settlement record plus previousStatus. Always eventId and sequence (1, 2, 3 … per payout or settlement, in the order of its ' +
        'changes): keep the highest sequence seen per resource and ignore older ones.',
    }),
  },
  { $id: 'Event', additionalProperties: false, examples: [eventExample] },
);

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
