// SQL of the notifications area: endpoints, deliveries and their attempts. The fan-out of new
// events into deliveries is the trigger of migration 0013; every delivery job is made by its
// enqueue_webhook_delivery_jobs function.
import type { Queryable } from '../platform/database/pool.ts';
import { isUuid } from '../platform/ids.ts';
import type { EventType } from '../events/repo.ts';
import type { CircuitColumns, CircuitSettings } from './circuit.ts';

export type EndpointStatus = 'ENABLED' | 'DISABLED' | 'DELETED';

/** The type of the events a member asks for to test an endpoint; no endpoint subscribes to it and the events list leaves it out. */
export const TEST_EVENT_TYPE = 'webhook.test';

export interface EndpointRow extends CircuitColumns {
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
  secret_sealed AS "secretSealed", status, status_reason AS "statusReason", creation_time AS "creationTime", status_time AS "statusTime",
  consecutive_failures AS "consecutiveFailures", circuit_open_until AS "circuitOpenUntil", circuit_probe_until AS "circuitProbeUntil"`;

export async function insertEndpoint(db: Queryable, e: Omit<EndpointRow, 'status' | 'statusReason' | 'statusTime' | keyof CircuitColumns>): Promise<void> {
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

/** Changes the URL and/or the event types of a member's endpoint that is not deleted; answers it, or undefined. */
export async function updateEndpoint(
  db: Queryable, memberId: string, webhookEndpointId: string, patch: { url?: string; eventTypes?: EventType[] },
): Promise<EndpointRow | undefined> {
  if (!isUuid(webhookEndpointId)) return undefined;
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET url = coalesce($3, url), event_types = coalesce($4::text[], event_types)
      WHERE webhook_endpoint_id = $1 AND member_id = $2 AND status <> 'DELETED'
      RETURNING ${ENDPOINT_COLUMNS}`,
    [webhookEndpointId, memberId, patch.url ?? null, patch.eventTypes ?? null],
  );
  return rows[0];
}

/**
 * Replaces a member's endpoint secret. The one it replaces goes on signing deliveries beside the
 * new one for `overlapSeconds` (0: not at all); a secret still in its overlap from an earlier
 * rotation is dropped, so at most two secrets sign at once. Answers the endpoint and when the
 * replaced secret stops signing (null when at once), or undefined.
 */
export async function rotateSecret(
  db: Queryable, memberId: string, webhookEndpointId: string, secretSealed: string, overlapSeconds: number,
): Promise<{ row: EndpointRow; previousSecretExpiresAt: Date | null } | undefined> {
  if (!isUuid(webhookEndpointId)) return undefined;
  const { rows } = await db.query<EndpointRow & { previousSecretExpiresAt: Date | null }>(
    `UPDATE webhook_endpoints SET
            previous_secret_sealed = CASE WHEN $4::int > 0 THEN secret_sealed END,
            previous_secret_expires_at = CASE WHEN $4::int > 0 THEN now() + make_interval(secs => $4::int) END,
            secret_sealed = $3
      WHERE webhook_endpoint_id = $1 AND member_id = $2 AND status <> 'DELETED'
      RETURNING ${ENDPOINT_COLUMNS}, previous_secret_expires_at AS "previousSecretExpiresAt"`,
    [webhookEndpointId, memberId, secretSealed, overlapSeconds],
  );
  const found = rows[0];
  if (!found) return undefined;
  const { previousSecretExpiresAt, ...row } = found;
  return { row, previousSecretExpiresAt };
}

/**
 * A member enables or disables its endpoint (not a deleted one). Enabling closes the circuit,
 * as the operator's `webhooks enable` does. An endpoint already in `to` is left as it is
 * (its reason and circuit kept). Answers the endpoint as it now is, or undefined.
 */
export async function setMemberEndpointStatus(
  db: Queryable, memberId: string, webhookEndpointId: string, to: 'ENABLED' | 'DISABLED', reason: string | null,
): Promise<EndpointRow | undefined> {
  if (!isUuid(webhookEndpointId)) return undefined;
  const { rows } = await db.query<EndpointRow>(
    `WITH target AS (SELECT webhook_endpoint_id FROM webhook_endpoints
                      WHERE webhook_endpoint_id = $1 AND member_id = $2 AND status <> 'DELETED' FOR UPDATE),
          moved AS (UPDATE webhook_endpoints w SET status = $3, status_reason = $4, status_time = now(),
                           consecutive_failures = CASE WHEN $3 = 'ENABLED' THEN 0 ELSE w.consecutive_failures END,
                           circuit_open_until = CASE WHEN $3 = 'ENABLED' THEN NULL ELSE w.circuit_open_until END,
                           circuit_probe_until = CASE WHEN $3 = 'ENABLED' THEN NULL ELSE w.circuit_probe_until END
                      FROM target t WHERE w.webhook_endpoint_id = t.webhook_endpoint_id AND w.status <> $3
                    RETURNING w.webhook_endpoint_id)
     SELECT 1 FROM target, (SELECT count(*) FROM moved) AS m`,
    [webhookEndpointId, memberId, to, reason],
  );
  if (rows.length === 0) return undefined;
  return findEndpoint(db, webhookEndpointId);
}

export type TestEventResult =
  | { kind: 'QUEUED'; deliveryId: string; eventId: string }
  | { kind: 'UNKNOWN' }
  | { kind: 'NOT_ENABLED'; status: EndpointStatus }
  | { kind: 'LIMITED'; retryAfterSeconds: number };

/**
 * A test event for one endpoint, in one statement: the endpoint's row is locked, its one-minute
 * window counts the test events asked for (at most `perMinuteMax`), and the event (type
 * TEST_EVENT_TYPE, which no endpoint subscribes to, so the fan-out trigger adds no delivery), its
 * one delivery and the delivery's job are written together.
 */
export async function queueTestEvent(
  db: Queryable, memberId: string, webhookEndpointId: string, data: Record<string, unknown>, perMinuteMax: number,
): Promise<TestEventResult> {
  if (!isUuid(webhookEndpointId)) return { kind: 'UNKNOWN' };
  const { rows } = await db.query<{ status: EndpointStatus; retryAfterSeconds: number; deliveryId: string | null; eventId: string | null }>(
    `WITH target AS (
       SELECT webhook_endpoint_id, status, test_window_count,
              test_window_start IS NULL OR test_window_start <= now() - interval '1 minute' AS fresh,
              greatest(1, ceil(extract(epoch FROM test_window_start + interval '1 minute' - now())))::int AS retry_after_seconds
         FROM webhook_endpoints WHERE webhook_endpoint_id = $1 AND member_id = $2 AND status <> 'DELETED' FOR UPDATE),
     claimed AS (
       UPDATE webhook_endpoints w SET test_window_start = CASE WHEN t.fresh THEN now() ELSE w.test_window_start END,
              test_window_count = CASE WHEN t.fresh THEN 1 ELSE w.test_window_count + 1 END
         FROM target t WHERE w.webhook_endpoint_id = t.webhook_endpoint_id AND t.status = 'ENABLED' AND (t.fresh OR t.test_window_count < $4)
       RETURNING w.webhook_endpoint_id, w.member_id),
     e AS (INSERT INTO events (member_id, type, resource_id, sequence, data)
           SELECT member_id, $5, gen_random_uuid()::text, 1, $3::jsonb FROM claimed RETURNING event_id, event_key),
     d AS (INSERT INTO webhook_deliveries (webhook_endpoint_id, event_id, member_id)
           SELECT c.webhook_endpoint_id, e.event_id, c.member_id FROM claimed c, e RETURNING delivery_id),
     j AS (SELECT enqueue_webhook_delivery_jobs(array_agg(delivery_id), array_agg(0), array_agg(NULL::timestamptz)) FROM d)
     SELECT t.status, coalesce(t.retry_after_seconds, 1) AS "retryAfterSeconds",
            (SELECT delivery_id FROM d) AS "deliveryId", (SELECT event_key FROM e) AS "eventId"
       FROM target t, (SELECT count(*) FROM j) AS jobs`,
    [webhookEndpointId, memberId, JSON.stringify(data), perMinuteMax, TEST_EVENT_TYPE],
  );
  const row = rows[0];
  if (!row) return { kind: 'UNKNOWN' };
  if (row.deliveryId !== null && row.eventId !== null) return { kind: 'QUEUED', deliveryId: row.deliveryId, eventId: row.eventId };
  if (row.status !== 'ENABLED') return { kind: 'NOT_ENABLED', status: row.status };
  return { kind: 'LIMITED', retryAfterSeconds: row.retryAfterSeconds };
}

/** Moves an endpoint to `to` unless it is already deleted; answers whether it moved. Enabling closes its circuit. */
export async function setEndpointStatus(
  db: Queryable, webhookEndpointId: string, to: EndpointStatus, reason: string | null, memberId?: string,
): Promise<boolean> {
  if (!isUuid(webhookEndpointId)) return false;
  const { rowCount } = await db.query(
    `UPDATE webhook_endpoints SET status = $2, status_reason = $3, status_time = now(),
            consecutive_failures = CASE WHEN $2 = 'ENABLED' THEN 0 ELSE consecutive_failures END,
            circuit_open_until = CASE WHEN $2 = 'ENABLED' THEN NULL ELSE circuit_open_until END,
            circuit_probe_until = CASE WHEN $2 = 'ENABLED' THEN NULL ELSE circuit_probe_until END
      WHERE webhook_endpoint_id = $1 AND status <> 'DELETED' AND ($4::text IS NULL OR member_id = $4)`,
    [webhookEndpointId, to, reason, memberId ?? null],
  );
  return rowCount === 1;
}

export interface DeliveryToSend extends CircuitColumns {
  deliveryId: string;
  webhookEndpointId: string;
  memberId: string;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  attempts: number;
  url: string;
  secretSealed: string;
  /** The secret a rotation replaced, while it still signs (its overlap not over), else null. */
  previousSecretSealed: string | null;
  endpointStatus: EndpointStatus;
  eventId: string;
  type: EventType | typeof TEST_EVENT_TYPE;
  timestamp: Date;
  data: Record<string, unknown>;
}

/** The deliveries with what sending them needs (endpoint, secret, event), by id; missing ids are left out. */
export async function findDeliveriesToSend(db: Queryable, deliveryIds: string[]): Promise<Map<string, DeliveryToSend>> {
  const { rows } = await db.query<DeliveryToSend>({
    name: 'webhooks-deliveries-to-send',
    text: `SELECT d.delivery_id AS "deliveryId", d.webhook_endpoint_id AS "webhookEndpointId", d.member_id AS "memberId", d.status, d.attempts,
                  w.url, w.secret_sealed AS "secretSealed", w.status AS "endpointStatus",
                  CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret_sealed END AS "previousSecretSealed",
                  w.consecutive_failures AS "consecutiveFailures", w.circuit_open_until AS "circuitOpenUntil",
                  w.circuit_probe_until AS "circuitProbeUntil",
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
 * states, the jobs of the next attempts, and the endpoints' circuits (circuit.ts) and their
 * disabling on a 410. An attempt whose delivery has moved on since it began (a duplicate job run)
 * is not recorded; answers the ids recorded. An endpoint row is written only when its circuit or
 * status changes, so that a healthy endpoint's successes do not all queue on its row lock.
 */
export async function recordAttempts(db: Queryable, records: AttemptRecord[], circuit: CircuitSettings): Promise<Set<string>> {
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
              RETURNING w.delivery_id, w.attempts, w.webhook_endpoint_id, w.status, i.attempted_at, i.response_status, i.latency_ms, i.error,
                        i.next_attempt_at, i.disable_reason),
           a AS (INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, response_status, latency_ms, error)
                 SELECT delivery_id, attempts, attempted_at, response_status, latency_ms, error FROM d RETURNING delivery_id),
           j AS (SELECT enqueue_webhook_delivery_jobs(array_agg(delivery_id), array_agg(attempts), array_agg(next_attempt_at))
                   FROM d WHERE next_attempt_at IS NOT NULL),
           per_endpoint AS (
             SELECT webhook_endpoint_id, bool_or(status = 'SUCCEEDED') AS succeeded, count(*) FILTER (WHERE status <> 'SUCCEEDED')::int AS failed,
                    max(disable_reason) AS disable_reason, max(attempted_at) AS attempted_at
               FROM d GROUP BY webhook_endpoint_id),
           w AS (UPDATE webhook_endpoints e SET
                   status = CASE WHEN p.disable_reason IS NOT NULL AND e.status = 'ENABLED' THEN 'DISABLED' ELSE e.status END,
                   status_reason = CASE WHEN p.disable_reason IS NOT NULL AND e.status = 'ENABLED' THEN p.disable_reason ELSE e.status_reason END,
                   status_time = CASE WHEN p.disable_reason IS NOT NULL AND e.status = 'ENABLED' THEN p.attempted_at ELSE e.status_time END,
                   consecutive_failures = CASE WHEN p.succeeded THEN 0 ELSE least(e.consecutive_failures + p.failed, 1000000) END,
                   circuit_open_until = CASE WHEN p.succeeded THEN NULL
                                             WHEN e.consecutive_failures + p.failed >= $10 THEN now() + make_interval(secs => $11::double precision / 1000)
                                             ELSE e.circuit_open_until END,
                   circuit_probe_until = CASE WHEN p.succeeded OR e.consecutive_failures + p.failed >= $10 THEN NULL ELSE e.circuit_probe_until END
                   FROM per_endpoint p
                  WHERE e.webhook_endpoint_id = p.webhook_endpoint_id
                    AND (p.failed > 0 OR p.disable_reason IS NOT NULL
                         OR e.consecutive_failures > 0 OR e.circuit_open_until IS NOT NULL OR e.circuit_probe_until IS NOT NULL)
                 RETURNING 1)
           SELECT a.delivery_id AS "deliveryId" FROM a, (SELECT count(*) FROM j) AS jobs, (SELECT count(*) FROM w) AS endpoints`,
    values: [
      records.map((r) => r.deliveryId), records.map((r) => r.attemptsBefore), records.map((r) => r.attemptedAt),
      records.map((r) => r.responseStatus), records.map((r) => r.latencyMs), records.map((r) => r.error),
      records.map((r) => (r.outcome === 'RETRY' ? 'PENDING' : r.outcome)), records.map((r) => r.nextAttemptAt),
      records.map((r) => r.disableEndpoint), circuit.failuresMax, circuit.openMs,
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

export interface Deferral {
  deliveryId: string;
  attemptsBefore: number;
  runAt: Date;
  /** Times this delivery has now been put back in a row (carried in the job's payload). */
  deferrals: number;
}

/**
 * Puts deliveries' jobs back without counting an attempt (member or endpoint busy, circuit open),
 * behind fresh work (migration 0017's defer_webhook_delivery_jobs). One statement for many.
 */
export async function deferDeliveries(db: Queryable, items: Deferral[]): Promise<void> {
  await db.query({
    name: 'webhooks-defer-deliveries',
    text: `WITH input AS (SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[]) AS i(delivery_id, attempts_before, run_at, deferrals)),
                due AS (SELECT i.* FROM input i JOIN webhook_deliveries d
                          ON d.delivery_id = i.delivery_id AND d.status = 'PENDING' AND d.attempts = i.attempts_before)
           SELECT defer_webhook_delivery_jobs(array_agg(delivery_id), array_agg(attempts_before), array_agg(run_at), array_agg(deferrals)) FROM due`,
    values: [items.map((i) => i.deliveryId), items.map((i) => i.attemptsBefore), items.map((i) => i.runAt), items.map((i) => i.deferrals)],
  });
}

/**
 * Half open: makes this delivery the endpoint's probe, out until `probeUntil`, unless another
 * delivery already is (or the circuit has moved on); answers whether it is the probe.
 */
export async function claimProbe(db: Queryable, webhookEndpointId: string, probeUntil: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_endpoints SET circuit_probe_until = $2
      WHERE webhook_endpoint_id = $1 AND circuit_open_until IS NOT NULL AND circuit_open_until <= now()
        AND (circuit_probe_until IS NULL OR circuit_probe_until <= now())`,
    [webhookEndpointId, probeUntil],
  );
  return rowCount === 1;
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
