// The events outbox: one row per status change, written in the transaction that made it.
import type { Queryable } from '../platform/database/pool.ts';

export const EVENT_TYPES = ['payout.status_changed', 'payout.cancellation_status_changed', 'settlement.status_changed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface NewEvent {
  memberId: string;
  type: EventType;
  resourceId: string;
  sequence: number;
  data: object;
}

export async function insertEvents(db: Queryable, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `INSERT INTO events (member_id, type, resource_id, sequence, data)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::jsonb[])`,
    [
      events.map((e) => e.memberId),
      events.map((e) => e.type),
      events.map((e) => e.resourceId),
      events.map((e) => e.sequence),
      events.map((e) => JSON.stringify(e.data)),
    ],
  );
}
