// SQL of the notifications area: endpoints, deliveries and their attempts. The fan-out of new
// events into deliveries is the trigger of migration 0013; every delivery job is made by its
// enqueue_webhook_delivery_jobs function.
import type { Queryable } from '../platform/database/pool.ts';
import { isUuid } from '../platform/ids.ts';
import type { EventType } from '../events/repo.ts';

export type EndpointStatus = 'ENABLED' | 'DISABLED' | 'DELETED';

export interface EndpointRow {
  webhookEndpointId: string;
  memberId: string;
  url: string;
  eventTypes: EventType[];
  secretSealed: string;
  status: EndpointStatus;
  statusReason: string | null;
  creationTime: Date;
  statusTime: Date | null;
}

const ENDPOINT_COLUMNS = `webhook_endpoint_id AS "webhookEndpointId", member_id AS "memberId", url, event_types AS "eventTypes",
  secret_sealed AS "secretSealed", status, status_reason AS "statusReason", creation_time AS "creationTime", status_time AS "statusTime"`;

export async function insertEndpoint(db: Queryable, e: Omit<EndpointRow, 'status' | 'statusReason' | 'statusTime'>): Promise<void> {
  await db.query(
    `INSERT INTO webhook_endpoints (webhook_endpoint_id, member_id, url, event_types, secret_sealed, creation_time)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [e.webhookEndpointId, e.memberId, e.url, e.eventTypes, e.secretSealed, e.creationTime],
  );
}

/** The member's endpoints that are not deleted, oldest first. */
export async function listEndpoints(db: Queryable, memberId: string): Promise<EndpointRow[]> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE member_id = $1 AND status <> 'DELETED'
      ORDER BY creation_time, webhook_endpoint_id`,
    [memberId],
  );
  return rows;
}

export async function findEndpoint(db: Queryable, webhookEndpointId: string): Promise<EndpointRow | undefined> {
  if (!isUuid(webhookEndpointId)) return undefined;
  const { rows } = await db.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE webhook_endpoint_id = $1`, [webhookEndpointId]);
  return rows[0];
}

/** Moves an endpoint to `to` unless it is already deleted; answers whether it moved. */
export async function setEndpointStatus(
  db: Queryable, webhookEndpointId: string, to: EndpointStatus, reason: string | null, memberId?: string,
): Promise<boolean> {
  if (!isUuid(webhookEndpointId)) return false;
  const { rowCount } = await db.query(
    `UPDATE webhook_endpoints SET status = $2, status_reason = $3, status_time = now()
      WHERE webhook_endpoint_id = $1 AND status <> 'DELETED' AND ($4::text IS NULL OR member_id = $4)`,
    [webhookEndpointId, to, reason, memberId ?? null],
  );
  return rowCount === 1;
}

export interface DeliveryToSend {
  deliveryId: string;
  webhookEndpointId: string;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  attempts: number;
  url: string;
  secretSealed: string;
  endpointStatus: EndpointStatus;
  eventId: string;
  type: EventType;
  timestamp: Date;
  data: Record<string, unknown>;
}

/** The deliveries with what sending them needs (endpoint, secret, event), by id; missing ids are left out. */
export async function findDeliveriesToSend(db: Queryable, deliveryIds: string[]): Promise<Map<string, DeliveryToSend>> {
  const { rows } = await db.query<DeliveryToSend>({
    name: 'webhooks-deliveries-to-send',
    text: `SELECT d.delivery_id AS "deliveryId", d.webhook_endpoint_id AS "webhookEndpointId", d.status, d.attempts,
                  w.url, w.secret_sealed AS "secretSealed", w.status AS "endpointStatus",
                  e.event_key AS "eventId", e.type, e.created_at AS "timestamp",
                  e.data || jsonb_build_object('eventId', e.event_key, 'sequence', e.sequence) AS data
             FROM webhook_deliveries d
             JOIN webhook_endpoints w ON w.webhook_endpoint_id = d.webhook_endpoint_id
             JOIN events e ON e.event_id = d.event_id
            WHERE d.delivery_id = ANY($1::uuid[])`,
    values: [deliveryIds],
  });
  return new Map(rows.map((r) => [r.deliveryId, r]));
}

export interface AttemptRecord {
  deliveryId: string;
  /** Attempts made before this one: the record is written only if the delivery still says so. */
  attemptsBefore: number;
  attemptedAt: Date;
  responseStatus: number | null;
  latencyMs: number;
  error: string | null;
  /** The delivery's state after this attempt. */
  outcome: 'SUCCEEDED' | 'FAILED' | 'RETRY';
  nextAttemptAt: Date | null;
  /** 410 Gone: the endpoint is disabled with this reason. */
  disableEndpoint: string | null;
}

/**
 * Records attempts and their consequences in one statement: the attempt rows, the deliveries' new
 * states, the jobs of the next attempts, and endpoints disabled on a 410. An attempt whose delivery
 * has moved on since it began (a duplicate job run) is not recorded; answers the ids recorded.
 */
export async function recordAttempts(db: Queryable, records: AttemptRecord[]): Promise<Set<string>> {
  const { rows } = await db.query<{ deliveryId: string }>({
    name: 'webhooks-record-attempts',
    text: `WITH input AS (
             SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[], $8::timestamptz[], $9::text[])
               AS i(delivery_id, attempts_before, attempted_at, response_status, latency_ms, error, status, next_attempt_at, disable_reason)),
           d AS (
             UPDATE webhook_deliveries w SET attempts = w.attempts + 1, status = i.status, last_error = i.error, next_attempt_at = i.next_attempt_at,
                    completed_at = CASE WHEN i.status = 'PENDING' THEN NULL ELSE i.attempted_at END
               FROM input i
              WHERE w.delivery_id = i.delivery_id AND w.status = 'PENDING' AND w.attempts = i.attempts_before
              RETURNING w.delivery_id, w.attempts, w.webhook_endpoint_id, i.attempted_at, i.response_status, i.latency_ms, i.error,
                        i.next_attempt_at, i.disable_reason),
           a AS (INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, response_status, latency_ms, error)
                 SELECT delivery_id, attempts, attempted_at, response_status, latency_ms, error FROM d RETURNING delivery_id),
           j AS (SELECT enqueue_webhook_delivery_jobs(array_agg(delivery_id), array_agg(attempts), array_agg(next_attempt_at))
                   FROM d WHERE next_attempt_at IS NOT NULL),
           w AS (UPDATE webhook_endpoints e SET status = 'DISABLED', status_reason = d.disable_reason, status_time = d.attempted_at
                   FROM d WHERE d.disable_reason IS NOT NULL AND e.webhook_endpoint_id = d.webhook_endpoint_id AND e.status = 'ENABLED'
                 RETURNING 1)
           SELECT a.delivery_id AS "deliveryId" FROM a, (SELECT count(*) FROM j) AS jobs, (SELECT count(*) FROM w) AS disabled`,
    values: [
      records.map((r) => r.deliveryId), records.map((r) => r.attemptsBefore), records.map((r) => r.attemptedAt),
      records.map((r) => r.responseStatus), records.map((r) => r.latencyMs), records.map((r) => r.error),
      records.map((r) => (r.outcome === 'RETRY' ? 'PENDING' : r.outcome)), records.map((r) => r.nextAttemptAt),
      records.map((r) => r.disableEndpoint),
    ],
  });
  return new Set(rows.map((r) => r.deliveryId));
}

/** Ends a pending delivery without an attempt (its endpoint is disabled or deleted). */
export async function abandonDelivery(db: Queryable, deliveryId: string, attemptsBefore: number, reason: string): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET status = 'FAILED', last_error = $3, next_attempt_at = NULL, completed_at = now()
      WHERE delivery_id = $1 AND status = 'PENDING' AND attempts = $2`,
    [deliveryId, attemptsBefore, reason],
  );
}

/** Puts a delivery's job back without counting an attempt (its endpoint is busy in this process). */
export async function deferDelivery(db: Queryable, deliveryId: string, attemptsBefore: number, runAt: Date): Promise<void> {
  await db.query(
    `SELECT enqueue_webhook_delivery_jobs(ARRAY[delivery_id], ARRAY[attempts], ARRAY[$3::timestamptz])
       FROM webhook_deliveries WHERE delivery_id = $1 AND status = 'PENDING' AND attempts = $2`,
    [deliveryId, attemptsBefore, runAt],
  );
}

export interface DeliveryView {
  deliveryId: string;
  webhookEndpointId: string;
  eventId: string;
  type: string;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

/** A member's failed deliveries, newest first (the operator's view). */
export async function failedDeliveries(db: Queryable, memberId: string, limit: number): Promise<DeliveryView[]> {
  const { rows } = await db.query<DeliveryView>(
    `SELECT d.delivery_id AS "deliveryId", d.webhook_endpoint_id AS "webhookEndpointId", e.event_key AS "eventId", e.type,
            d.status, d.attempts, d.last_error AS "lastError", d.created_at AS "createdAt", d.completed_at AS "completedAt"
       FROM webhook_deliveries d JOIN events e ON e.event_id = d.event_id
      WHERE d.member_id = $1 AND d.status = 'FAILED'
      ORDER BY d.completed_at DESC, d.delivery_id LIMIT $2`,
    [memberId, limit],
  );
  return rows;
}

export type RedeliverResult = 'REQUEUED' | 'NOT_FOUND' | 'NOT_FAILED' | 'ENDPOINT_NOT_ENABLED';

/**
 * A failed delivery is tried again now. Its attempt count is kept (earlier attempts stay on record
 * under their numbers), so the retry schedule goes on from there: after all ten, one more try.
 */
export async function redeliver(db: Queryable, deliveryId: string): Promise<RedeliverResult> {
  if (!isUuid(deliveryId)) return 'NOT_FOUND';
  const { rows } = await db.query<{ status: string; endpointStatus: string; requeued: boolean }>(
    `WITH target AS (
       SELECT d.delivery_id, d.status, w.status AS endpoint_status FROM webhook_deliveries d
         JOIN webhook_endpoints w ON w.webhook_endpoint_id = d.webhook_endpoint_id WHERE d.delivery_id = $1 FOR UPDATE OF d),
     moved AS (
       UPDATE webhook_deliveries d SET status = 'PENDING', completed_at = NULL, next_attempt_at = now(), last_error = NULL
         FROM target t WHERE d.delivery_id = t.delivery_id AND t.status = 'FAILED' AND t.endpoint_status = 'ENABLED'
         RETURNING d.delivery_id, d.attempts),
     job AS (SELECT enqueue_webhook_delivery_jobs(ARRAY[delivery_id], ARRAY[attempts], ARRAY[NULL::timestamptz]) FROM moved)
     SELECT t.status, t.endpoint_status AS "endpointStatus", (SELECT count(*) FROM job) = 1 AS requeued FROM target t`,
    [deliveryId],
  );
  const row = rows[0];
  if (!row) return 'NOT_FOUND';
  if (row.requeued) return 'REQUEUED';
  return row.status !== 'FAILED' ? 'NOT_FAILED' : 'ENDPOINT_NOT_ENABLED';
}
