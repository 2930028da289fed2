// The events list's refusals and how the contract answers each.
import type { RefusalTable } from '../platform/http/refusals.ts';

export type EventsRefusal = 'UNKNOWN_CURSOR';

export const EVENTS_REFUSALS = {
  UNKNOWN_CURSOR: { code: 'VALIDATION_ERROR', message: 'The cursor is not one of your events.', detail: 'after: not one of your events' },
} as const satisfies RefusalTable<EventsRefusal>;
