// The events outbox: one row per status change, written in the transaction that made it.
import type { Queryable } from '../platform/database/pool.ts';

export const EVENT_TYPES = [
  'payout.status_changed', 'payout.cancellation_status_changed', 'payout.review_status_changed', 'settlement.status_changed',
  'settlement.review_opened', 'settlement.review_resolved',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface NewEvent {
  memberId: string;
  type: EventType;
  resourceId: string;
  sequence: number;
  data: object;
}

/** The events as the five arrays the insert's unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::jsonb[]) takes. */
export function eventColumns(events: NewEvent[]): [string[], string[], string[], number[], string[]] {
  return [events.map((e) => e.memberId), events.map((e) => e.type), events.map((e) => e.resourceId), events.map((e) => e.sequence), events.map((e) => JSON.stringify(e.data))];
}

export async function insertEvents(db: Queryable, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `INSERT INTO events (member_id, type, resource_id, sequence, data)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::jsonb[])`,
    eventColumns(events),
  );
}

export interface EventRecord {
  eventId: string;
  type: EventType;
  timestamp: Date;
  data: Record<string, unknown>;
}

/** Where a member's page starts: the position of one of its events, or undefined if it has no such event. */
export async function findPosition(db: Queryable, memberId: string, eventId: string): Promise<{ txid: string; seq: string } | undefined> {
  const { rows } = await db.query<{ txid: string; seq: string }>(
    `SELECT txid::text AS txid, event_id::text AS seq FROM events WHERE event_key = $1 AND member_id = $2 AND type <> 'webhook.test'`,
    [eventId, memberId],
  );
  return rows[0];
}

/**
 * A member's events after `from` (or from the start), oldest first, in (txid, event_id) order and
 * only from transactions older than every one still running (see migration 0013): an event that
 * becomes visible later always sorts after this page, so paging never skips or repeats one.
 * Test events (type webhook.test, sent to one endpoint at the member's request) are not listed.
 */
export async function listEvents(db: Queryable, memberId: string, from: { txid: string; seq: string } | undefined, limit: number): Promise<EventRecord[]> {
  const { rows } = await db.query<EventRecord>({
    name: 'events-list',
    text: `SELECT event_key AS "eventId", type, created_at AS "timestamp",
                  data || jsonb_build_object('eventId', event_key, 'sequence', sequence) AS data
             FROM events
            WHERE member_id = $1
              AND type <> 'webhook.test'
              AND ($2::xid8 IS NULL OR (txid, event_id) > ($2::xid8, $3::bigint))
              AND txid < pg_snapshot_xmin(pg_current_snapshot())
            ORDER BY txid, event_id
            LIMIT $4`,
    values: [memberId, from?.txid ?? null, from?.seq ?? null, limit],
  });
  return rows;
}

/** Forgets events older than the retention period (their deliveries go with them); answers how many. */
export async function purgeEvents(db: Queryable, olderThan: Date, batchSizeMax: number): Promise<number> {
  const { rows } = await db.query<{ purged: number }>(
    `WITH old AS (SELECT event_id FROM events WHERE created_at < $1 ORDER BY created_at LIMIT $2),
          deliveries AS (DELETE FROM webhook_deliveries WHERE event_id IN (SELECT event_id FROM old) RETURNING 1),
          gone AS (DELETE FROM events WHERE event_id IN (SELECT event_id FROM old) RETURNING 1)
     SELECT ((SELECT count(*) FROM gone) + 0 * (SELECT count(*) FROM deliveries))::int AS purged`,
    [olderThan, batchSizeMax],
  );
  return rows[0]!.purged;
}
