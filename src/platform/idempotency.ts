// Idempotency-Key for creations (IETF httpapi draft): the first request with a key claims it and
// its answer is stored with the work it did, in one transaction; a retry with the same key and the
// same request gets that answer again; the same key with another request is IDEMPOTENCY_KEY_REUSED;
// a retry while the first is still running is REQUEST_IN_PROGRESS. Keys are kept KEY_TTL_MS.
import { createHash } from 'node:crypto';
import type { Queryable } from './database/pool.ts';
import type { Task } from 'graphile-worker';

export const KEY_TTL_MS = 24 * 3_600_000;
/** A claim older than this whose answer was never stored belongs to a request that died: it may be taken over. */
export const ABANDONED_CLAIM_MS = 60_000;
/** What the draft allows in the header: a string; we take 1 to 255 printable ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]([\x20-\x7e]{0,253}[\x21-\x7e])?$/;

export interface KeyRef {
  memberId: string;
  operation: string;
  key: string;
}

export type Claim =
  | { kind: 'CLAIMED' }
  | { kind: 'REPLAY'; status: number; body: unknown }
  | { kind: 'REUSED' }
  | { kind: 'IN_PROGRESS' };

/** A stable digest of a request body: the same JSON, whatever its key order, gives the same digest. */
export function requestFingerprint(value: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(canonical)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]))
        : v;
  return createHash('sha256').update(JSON.stringify(canonical(value))).digest('hex');
}

/**
 * Claims the key for this request (its own statement, committed at once, so that a concurrent
 * retry sees it), or says what the earlier request with the key decides.
 */
export async function claimKey(db: Queryable, ref: KeyRef, fingerprint: string, now: Date): Promise<Claim> {
  // Neither claimed nor seen: a concurrent first request committed its claim after this statement's
  // snapshot was taken (the insert waited for it, the read could not see it). Asking again sees it.
  for (let attempt = 0; attempt < 3; attempt++) {
    const claim = await tryClaim(db, ref, fingerprint, now);
    if (claim) return claim;
  }
  throw new Error(`idempotency key ${ref.key}: neither claimed nor found`);
}

async function tryClaim(db: Queryable, ref: KeyRef, fingerprint: string, now: Date): Promise<Claim | undefined> {
  const { rows } = await db.query<{ claimed: boolean; fingerprint: string; state: string; status: number | null; body: unknown }>({
    name: 'idempotency-claim',
    text: `WITH claimed AS (
             INSERT INTO idempotency_keys (member_id, operation, idempotency_key, request_fingerprint, state, claimed_at, expires_at)
             VALUES ($1, $2, $3, $4, 'IN_PROGRESS', $5, $6)
             ON CONFLICT (member_id, operation, idempotency_key) DO UPDATE
               SET request_fingerprint = EXCLUDED.request_fingerprint, state = 'IN_PROGRESS', response_status = NULL,
                   response_body = NULL, claimed_at = EXCLUDED.claimed_at, expires_at = EXCLUDED.expires_at
               WHERE idempotency_keys.expires_at <= $5
                  OR (idempotency_keys.state = 'IN_PROGRESS' AND idempotency_keys.claimed_at <= $7
                      AND idempotency_keys.request_fingerprint = EXCLUDED.request_fingerprint)
             RETURNING true AS claimed)
           SELECT true AS claimed, NULL AS fingerprint, NULL AS state, NULL::int AS status, NULL::jsonb AS body FROM claimed
           UNION ALL
           SELECT false, request_fingerprint, state, response_status, response_body FROM idempotency_keys
            WHERE member_id = $1 AND operation = $2 AND idempotency_key = $3 AND NOT EXISTS (SELECT 1 FROM claimed)`,
    values: [ref.memberId, ref.operation, ref.key, fingerprint, now, new Date(now.getTime() + KEY_TTL_MS), new Date(now.getTime() - ABANDONED_CLAIM_MS)],
  });
  const row = rows[0];
  if (!row) return undefined;
  if (row.claimed) return { kind: 'CLAIMED' };
  if (row.fingerprint !== fingerprint) return { kind: 'REUSED' };
  if (row.state === 'DONE') return { kind: 'REPLAY', status: row.status!, body: row.body };
  return { kind: 'IN_PROGRESS' };
}

/** Stores the answer of a claimed key; call it in the transaction that did the work. */
export async function completeKey(db: Queryable, ref: KeyRef, status: number, body: unknown): Promise<void> {
  const result = await db.query(
    `UPDATE idempotency_keys SET state = 'DONE', response_status = $4, response_body = $5
      WHERE member_id = $1 AND operation = $2 AND idempotency_key = $3 AND state = 'IN_PROGRESS'`,
    [ref.memberId, ref.operation, ref.key, status, JSON.stringify(body)],
  );
  if (result.rowCount !== 1) throw new Error(`idempotency key ${ref.key} was not claimed`);
}

/** Lets a claimed key go (the request failed unexpectedly and did nothing): a retry may claim it. */
export async function releaseKey(db: Queryable, ref: KeyRef): Promise<void> {
  await db.query(
    `DELETE FROM idempotency_keys WHERE member_id = $1 AND operation = $2 AND idempotency_key = $3 AND state = 'IN_PROGRESS'`,
    [ref.memberId, ref.operation, ref.key],
  );
}

export const PURGE_TASK = 'idempotency.purge_expired_keys';
/** Every hour, forgets the keys past their 24 hours. */
export const PURGE_CRON = '17 * * * *';

/** Forgets keys past their 24 hours; returns how many. */
export async function deleteExpiredKeys(db: Queryable, now: Date): Promise<number> {
  const result = await db.query('DELETE FROM idempotency_keys WHERE expires_at <= $1', [now]);
  return result.rowCount ?? 0;
}

export const purgeExpiredKeysTask = (db: Queryable, now: () => Date): Task => async (_payload, helpers) => {
  const purged = await deleteExpiredKeys(db, now());
  if (purged > 0) helpers.logger.info(`forgot ${purged} idempotency keys past 24 hours`);
};
