// SQL for payouts. Amounts leave and enter as exact decimal text.
import { isUuid } from '../platform/ids.ts';
import type { Queryable } from '../platform/database/pool.ts';
import type { CancellationStatus, PayoutStatus, SubmissionState } from './lifecycle.ts';
import type { PayoutMethod, Segment } from '../providers/model.ts';
import { eventColumns, type NewEvent } from '../events/repo.ts';
import { postingCtes, reservationCtes, reservationsParameter, type TransferRow } from '../ledger/repo.ts';
import type { CreatePayoutResponse } from './schemas.ts';


export interface PayoutRow {
  payoutId: string;
  sourceMemberId: string;
  sourceMemberPayoutId: string;
  requestFingerprint: string;
  payoutProviderId: string;
  destinationMemberId: string;
  payoutMethod: PayoutMethod;
  segment: Segment;
  destinationCcy: string;
  payoutAmt: string;
  transferFee: string;
  payoutStatus: PayoutStatus;
  cashoutStatus: string | null;
  rejectReason: string | null;
  cancellationStatus: CancellationStatus | null;
  cancellationReason: string | null;
  submissionState: SubmissionState;
  sender: Record<string, unknown>;
  beneficiary: Record<string, unknown>;
  complianceInfo: Record<string, unknown> | null;
  senderName: string;
  beneficiaryName: string;
  senderCountry: string | null;
  beneficiaryCountry: string | null;
  creationTime: Date;
  expiryTime: Date;
  initiateTime: Date | null;
  completionTime: Date | null;
  rejectionTime: Date | null;
  cancellationTime: Date | null;
  eventSequence: number;
  /** The 201 answer as first given, replayed for the same request. */
  createResponse: CreatePayoutResponse;
}

const COLUMNS = `payout_id AS "payoutId", source_member_id AS "sourceMemberId", source_member_payout_id AS "sourceMemberPayoutId",
  request_fingerprint AS "requestFingerprint", payout_provider_id AS "payoutProviderId", destination_member_id AS "destinationMemberId",
  payout_method AS "payoutMethod", segment, destination_ccy AS "destinationCcy", payout_amt::text AS "payoutAmt",
  transfer_fee::text AS "transferFee", payout_status AS "payoutStatus", cashout_status AS "cashoutStatus",
  reject_reason AS "rejectReason", cancellation_status AS "cancellationStatus", cancellation_reason AS "cancellationReason",
  submission_state AS "submissionState", sender, beneficiary, compliance_info AS "complianceInfo", sender_name AS "senderName",
  beneficiary_name AS "beneficiaryName", sender_country AS "senderCountry", beneficiary_country AS "beneficiaryCountry",
  creation_time AS "creationTime", expiry_time AS "expiryTime", initiate_time AS "initiateTime", completion_time AS "completionTime",
  rejection_time AS "rejectionTime", cancellation_time AS "cancellationTime", event_sequence AS "eventSequence",
  create_response AS "createResponse"`;
export const PAYOUT_COLUMNS = COLUMNS;


/** The member's payout, or undefined (also for another member's payout, and for a malformed id). */
export async function findPayout(db: Queryable, memberId: string, payoutId: string, forUpdate = false): Promise<PayoutRow | undefined> {
  if (!isUuid(payoutId)) return undefined;
  const { rows } = await db.query<PayoutRow>(
    `SELECT ${COLUMNS} FROM payouts WHERE payout_id = $1 AND source_member_id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [payoutId, memberId],
  );
  return rows[0];
}

export async function lockPayout(db: Queryable, payoutId: string): Promise<PayoutRow | undefined> {
  const { rows } = await db.query<PayoutRow>(`SELECT ${COLUMNS} FROM payouts WHERE payout_id = $1 FOR UPDATE`, [payoutId]);
  return rows[0];
}

/** Locks several payouts, in id order so that concurrent batches cannot deadlock. */
export async function lockPayouts(db: Queryable, payoutIds: string[]): Promise<Map<string, PayoutRow>> {
  const { rows } = await db.query<PayoutRow>({
    name: 'payouts-lock-many',
    text: `SELECT ${COLUMNS} FROM payouts WHERE payout_id = ANY($1::uuid[]) ORDER BY payout_id FOR UPDATE`,
    values: [payoutIds],
  });
  return new Map(rows.map((r) => [r.payoutId, r]));
}

/**
 * Writes the result of many submissions at once (status, cashout status, times, sequence) and
 * their status events, in one statement (one round trip inside the answers batch's transaction).
 */
export async function writeSubmissions(db: Queryable, rows: PayoutRow[], events: NewEvent[]): Promise<void> {
  if (rows.length === 0 && events.length === 0) return;
  await db.query({
    name: 'payouts-write-submissions',
    text: `WITH written AS (
             UPDATE payouts p SET payout_status = u.status, cashout_status = u.cashout, submission_state = 'SUBMITTED',
                    completion_time = u.completion, event_sequence = u.sequence
               FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::int[]) AS u(id, status, cashout, completion, sequence)
              WHERE p.payout_id = u.id)
           INSERT INTO events (member_id, type, resource_id, sequence, data)
           SELECT * FROM unnest($6::text[], $7::text[], $8::text[], $9::int[], $10::jsonb[])`,
    values: [
      rows.map((r) => r.payoutId), rows.map((r) => r.payoutStatus), rows.map((r) => r.cashoutStatus), rows.map((r) => r.completionTime), rows.map((r) => r.eventSequence),
      ...eventColumns(events),
    ],
  });
}

/** A submission's answer for the one-statement path: the payout as last read, what it becomes, its event. */
export interface AnsweredSubmission {
  expected: PayoutRow;
  next: PayoutRow;
  event: NewEvent;
  /** Whether its reservation is posted (it was paid). */
  posts: boolean;
}

/**
 * Writes answered submissions in one statement, without a transaction of its own: each payout
 * still exactly as `expected` (every column a change may write, unchanged since it was read; for
 * one to be posted, its reservation still pending) is locked (in payout_id order), written as
 * `next` with `submission_state` SUBMITTED, given its event, and its reservation posted
 * (postingCtes). All of it or none of it commits. Answers the ids written; a payout that changed
 * meanwhile is left as it is, for the caller to apply its answer under lock.
 */
export async function writeAnsweredSubmissions(db: Queryable, items: AnsweredSubmission[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const input = items.map(({ expected: e, next: n, event, posts }) => ({
    payout_id: e.payoutId, payout_status: e.payoutStatus, cashout_status: e.cashoutStatus, reject_reason: e.rejectReason,
    cancellation_status: e.cancellationStatus, cancellation_reason: e.cancellationReason, submission_state: e.submissionState,
    initiate_time: e.initiateTime, completion_time: e.completionTime, rejection_time: e.rejectionTime,
    cancellation_time: e.cancellationTime, event_sequence: e.eventSequence,
    next_status: n.payoutStatus, next_cashout: n.cashoutStatus, next_completion: n.completionTime, next_sequence: n.eventSequence,
    posts, member_id: event.memberId, event_type: event.type, event_data: event.data,
  }));
  const { rows } = await db.query<{ payoutId: string }>({
    name: 'payouts-write-answered',
    text: `WITH u AS (
             SELECT * FROM jsonb_to_recordset($1::jsonb) AS u(payout_id uuid, payout_status text, cashout_status text, reject_reason text,
               cancellation_status text, cancellation_reason text, submission_state text, initiate_time timestamptz, completion_time timestamptz,
               rejection_time timestamptz, cancellation_time timestamptz, event_sequence int, next_status text, next_cashout text,
               next_completion timestamptz, next_sequence int, posts boolean, member_id text, event_type text, event_data jsonb)),
           unchanged AS (
             SELECT p.payout_id FROM payouts p JOIN u USING (payout_id)
              WHERE p.payout_id = ANY($2::uuid[]) -- an index scan, whatever the estimate of u's rows
                AND (p.payout_status, p.cashout_status, p.reject_reason, p.cancellation_status, p.cancellation_reason, p.submission_state,
                     p.initiate_time, p.completion_time, p.rejection_time, p.cancellation_time, p.event_sequence)
                    IS NOT DISTINCT FROM
                    (u.payout_status, u.cashout_status, u.reject_reason, u.cancellation_status, u.cancellation_reason, u.submission_state,
                     u.initiate_time, u.completion_time, u.rejection_time, u.cancellation_time, u.event_sequence)
                AND (NOT u.posts OR EXISTS (SELECT 1 FROM ledger_transfers t WHERE t.reference = p.payout_id::text AND t.state = 'PENDING'))
              ORDER BY p.payout_id FOR UPDATE OF p),
           written AS (
             UPDATE payouts p SET payout_status = u.next_status, cashout_status = u.next_cashout, submission_state = 'SUBMITTED',
                    completion_time = u.next_completion, event_sequence = u.next_sequence
               FROM unchanged JOIN u USING (payout_id)
              WHERE p.payout_id = unchanged.payout_id
             RETURNING p.payout_id, u.posts),
           ${postingCtes('IN (SELECT payout_id::text FROM written WHERE posts)')},
           events AS (
             INSERT INTO events (member_id, type, resource_id, sequence, data)
             SELECT u.member_id, u.event_type, u.payout_id::text, u.next_sequence, u.event_data FROM u JOIN written USING (payout_id))
           SELECT payout_id AS "payoutId" FROM written WHERE (SELECT count(*) FROM posted) >= 0`,
    values: [JSON.stringify(input), items.map((i) => i.expected.payoutId)],
  });
  return new Set(rows.map((r) => r.payoutId));
}

export async function readPayout(db: Queryable, payoutId: string): Promise<PayoutRow | undefined> {
  const { rows } = await db.query<PayoutRow>(`SELECT ${COLUMNS} FROM payouts WHERE payout_id = $1`, [payoutId]);
  return rows[0];
}

export async function findBySourceMemberPayoutId(db: Queryable, memberId: string, sourceMemberPayoutId: string) {
  const { rows } = await db.query<{ payoutId: string; requestFingerprint: string; createResponse: CreatePayoutResponse }>({
    name: 'payouts-by-source-id',
    text: `SELECT payout_id AS "payoutId", request_fingerprint AS "requestFingerprint", create_response AS "createResponse"
       FROM payouts WHERE source_member_id = $1 AND source_member_payout_id = $2`,
    values: [memberId, sourceMemberPayoutId],
  });
  return rows[0];
}

export type NewPayout = Omit<PayoutRow, 'cashoutStatus' | 'rejectReason' | 'cancellationStatus' | 'cancellationReason' | 'submissionState' | 'initiateTime' | 'completionTime' | 'rejectionTime' | 'cancellationTime'>;

const payoutInsertRows = (items: Array<{ payout: NewPayout; firstEvent: NewEvent }>) => JSON.stringify(items.map(({ payout: p, firstEvent }) => ({
  first_event: firstEvent.data,
  payout_id: p.payoutId, source_member_id: p.sourceMemberId, source_member_payout_id: p.sourceMemberPayoutId,
  request_fingerprint: p.requestFingerprint, payout_provider_id: p.payoutProviderId, destination_member_id: p.destinationMemberId,
  payout_method: p.payoutMethod, segment: p.segment, destination_ccy: p.destinationCcy, payout_amt: p.payoutAmt,
  transfer_fee: p.transferFee, payout_status: p.payoutStatus, submission_state: 'NONE', sender: p.sender, beneficiary: p.beneficiary,
  compliance_info: p.complianceInfo, sender_name: p.senderName, beneficiary_name: p.beneficiaryName,
  sender_country: p.senderCountry, beneficiary_country: p.beneficiaryCountry, creation_time: p.creationTime.toISOString(),
  expiry_time: p.expiryTime.toISOString(), event_sequence: p.eventSequence, create_response: p.createResponse,
})));

/** The new payouts of $1 (payoutInsertRows) with their first events and expiry queue entries; yields `inserted`. */
const PAYOUT_INSERT_CTES = `input AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(first_event jsonb, payout_id uuid)),
     inserted AS (INSERT INTO payouts (payout_id, source_member_id, source_member_payout_id, request_fingerprint, payout_provider_id,
       destination_member_id, payout_method, segment, destination_ccy, payout_amt, transfer_fee, payout_status, submission_state,
       sender, beneficiary, compliance_info, sender_name, beneficiary_name, sender_country, beneficiary_country, creation_time,
       expiry_time, event_sequence, create_response)
     SELECT payout_id, source_member_id, source_member_payout_id, request_fingerprint, payout_provider_id,
       destination_member_id, payout_method, segment, destination_ccy, payout_amt, transfer_fee, payout_status, submission_state,
       sender, beneficiary, compliance_info, sender_name, beneficiary_name, sender_country, beneficiary_country, creation_time,
       expiry_time, event_sequence, create_response
       FROM jsonb_populate_recordset(null::payouts, $1::jsonb)
     ON CONFLICT (source_member_id, source_member_payout_id) DO NOTHING
     RETURNING payout_id, source_member_id, event_sequence, expiry_time),
     queued AS (INSERT INTO payout_expiry_queue (payout_id, expiry_time) SELECT payout_id, expiry_time FROM inserted),
     events AS (INSERT INTO events (member_id, type, resource_id, sequence, data)
       SELECT i.source_member_id, 'payout.status_changed', i.payout_id::text, i.event_sequence, input.first_event
         FROM inserted i JOIN input USING (payout_id))`;

/**
 * Inserts the payouts whose sourceMemberPayoutId is new, each with its first event and its entry
 * in the expiry queue, in one statement; returns the ids actually inserted.
 */
export async function insertPayouts(db: Queryable, items: Array<{ payout: NewPayout; firstEvent: NewEvent }>): Promise<Set<string>> {
  const { rows: inserted } = await db.query<{ payoutId: string }>({
    name: 'payouts-insert-batch',
    text: `WITH ${PAYOUT_INSERT_CTES} SELECT payout_id AS "payoutId" FROM inserted`,
    values: [payoutInsertRows(items)],
  });
  return new Set(inserted.map((r) => r.payoutId));
}

/**
 * insertPayouts and the reservations of the payouts inserted (ledger reservationCtes, `$2`), in one
 * statement with no transaction of its own: all of it commits, or none of it (a prefund that
 * cannot pay for all of them fails it with SQLSTATE 23514). Returns the ids inserted.
 */
export async function insertReservedPayouts(
  db: Queryable, items: Array<{ payout: NewPayout; firstEvent: NewEvent }>, reservations: TransferRow[],
): Promise<Set<string>> {
  const { rows: inserted } = await db.query<{ payoutId: string }>({
    name: 'payouts-insert-reserved',
    text: `WITH ${PAYOUT_INSERT_CTES},
           ${reservationCtes('$2', 'SELECT payout_id::text FROM inserted')}
           SELECT payout_id AS "payoutId" FROM inserted`,
    values: [payoutInsertRows(items), reservationsParameter(reservations)],
  });
  return new Set(inserted.map((r) => r.payoutId));
}

/**
 * Takes back, inside the transaction that inserted them, payouts that could not be reserved:
 * their rows and their first events. Nothing of them was ever visible. (Their expiry queue
 * entries stay: the sweep passes over an entry whose payout does not exist.)
 */
export async function withdrawPayouts(db: Queryable, payoutIds: string[]): Promise<void> {
  await db.query('DELETE FROM events WHERE resource_id = ANY($1::text[])', [payoutIds]);
  await db.query('DELETE FROM payouts WHERE payout_id = ANY($1::uuid[])', [payoutIds]);
}

export interface PayoutChange {
  payoutStatus?: PayoutStatus;
  cashoutStatus?: string | null;
  rejectReason?: string | null;
  cancellationStatus?: CancellationStatus | null;
  cancellationReason?: string | null;
  submissionState?: PayoutRow['submissionState'];
  initiateTime?: Date;
  completionTime?: Date;
  rejectionTime?: Date;
  cancellationTime?: Date;
  eventSequence?: number;
}

const CHANGE_COLUMNS: Record<keyof PayoutChange, string> = {
  payoutStatus: 'payout_status', cashoutStatus: 'cashout_status', rejectReason: 'reject_reason',
  cancellationStatus: 'cancellation_status', cancellationReason: 'cancellation_reason', submissionState: 'submission_state',
  initiateTime: 'initiate_time', completionTime: 'completion_time', rejectionTime: 'rejection_time',
  cancellationTime: 'cancellation_time', eventSequence: 'event_sequence',
};

/** Writes the given columns of one (already locked) payout. */
export async function updatePayout(db: Queryable, payoutId: string, change: PayoutChange): Promise<void> {
  const keys = (Object.keys(change) as Array<keyof PayoutChange>).filter((k) => change[k] !== undefined);
  if (keys.length === 0) return;
  const sets = keys.map((k, i) => `${CHANGE_COLUMNS[k]} = $${i + 2}`).join(', ');
  await db.query(`UPDATE payouts SET ${sets} WHERE payout_id = $1`, [payoutId, ...keys.map((k) => change[k])]);
}

/**
 * Undoes a claim that found no rail to send with (nothing was sent). The payout waits for
 * `process` again, so it goes back into the expiry queue: the sweep may have taken its entry
 * (and passed it over) while it was claimed.
 */
export async function releaseClaim(db: Queryable, payoutId: string): Promise<void> {
  await db.query(
    `WITH released AS (
       UPDATE payouts SET submission_state = 'NONE', initiate_time = NULL WHERE payout_id = $1 AND submission_state = 'SUBMITTING'
       RETURNING payout_id, expiry_time)
     INSERT INTO payout_expiry_queue (payout_id, expiry_time) SELECT payout_id, expiry_time FROM released
     ON CONFLICT DO NOTHING`,
    [payoutId],
  );
}

/**
 * Records that payouts are being sent to their partners, for those nobody claimed before, with
 * no cancellation pending, not expired and not parked for review, in one statement (group commit). A payout asked for twice in the
 * batch is claimed by its first asker only. The recorded claim (SUBMITTING since initiate_time)
 * is itself what the recovery sweep finds after a crash.
 */
export async function claimSubmissions(db: Queryable, claims: Array<{ payoutId: string; memberId: string }>, now: Date): Promise<Array<PayoutRow | undefined>> {
  const valid = claims.filter((c) => isUuid(c.payoutId));
  const { rows } = valid.length === 0 ? { rows: [] as PayoutRow[] } : await db.query<PayoutRow>({
    name: 'payouts-claim-many',
    // rows locked in payout_id order first, as every statement that locks several payouts does
    text: `WITH claimable AS (
             SELECT p.payout_id AS claim_id FROM payouts p JOIN unnest($1::uuid[], $2::text[]) AS c(id, member)
                 ON p.payout_id = c.id AND p.source_member_id = c.member
              WHERE p.payout_status = 'ACCP' AND p.submission_state = 'NONE' AND p.cancellation_status IS NULL AND p.expiry_time > $3
                AND NOT EXISTS (SELECT 1 FROM payout_reviews r WHERE r.payout_id = p.payout_id AND r.resolved_at IS NULL)
              ORDER BY p.payout_id FOR UPDATE OF p)
           UPDATE payouts SET submission_state = 'SUBMITTING', initiate_time = $3
             FROM claimable WHERE payouts.payout_id = claimable.claim_id
           RETURNING ${COLUMNS}`,
    values: [valid.map((c) => c.payoutId), valid.map((c) => c.memberId), now],
  });
  const claimed = new Map(rows.map((r) => [r.payoutId, r]));
  return claims.map((c) => {
    const row = claimed.get(c.payoutId);
    if (row?.sourceMemberId !== c.memberId) return undefined;
    claimed.delete(c.payoutId); // the first asker only
    return row;
  });
}

/**
 * Takes up to `limit` entries of the expiry queue due at `now` (soonest first; entries another
 * sweep holds are left to it) and locks those of their payouts still waiting for `process`.
 * Returns how many entries were taken, and the waiting payouts.
 */
export async function takeDueForExpiry(db: Queryable, now: Date, limit: number): Promise<{ taken: number; waiting: PayoutRow[] }> {
  const { rows: due } = await db.query<{ payoutId: string }>({
    name: 'payout-expiry-queue-take',
    text: `DELETE FROM payout_expiry_queue q
            USING (SELECT ctid FROM payout_expiry_queue WHERE expiry_time <= $1 ORDER BY expiry_time LIMIT $2 FOR UPDATE SKIP LOCKED) d
            WHERE q.ctid = d.ctid
           RETURNING q.payout_id AS "payoutId"`,
    values: [now, limit],
  });
  if (due.length === 0) return { taken: 0, waiting: [] };
  const { rows: waiting } = await db.query<PayoutRow>({
    name: 'payouts-lock-waiting',
    text: `SELECT ${COLUMNS} FROM payouts
            WHERE payout_id = ANY($1::uuid[]) AND payout_status = 'ACCP' AND submission_state = 'NONE' AND cancellation_status IS NULL
              AND NOT EXISTS (SELECT 1 FROM payout_reviews r WHERE r.payout_id = payouts.payout_id AND r.resolved_at IS NULL)
            ORDER BY payout_id FOR UPDATE`,
    values: [due.map((r) => r.payoutId)],
  });
  return { taken: due.length, waiting };
}

/** Puts a payout waiting for `process` back into the expiry queue (after a review left it waiting). */
export async function requeueExpiry(db: Queryable, payoutId: string): Promise<void> {
  await db.query('INSERT INTO payout_expiry_queue (payout_id, expiry_time) SELECT payout_id, expiry_time FROM payouts WHERE payout_id = $1', [payoutId]);
}

/** When the next entry of the expiry queue is due, if there is one. */
export async function nextExpiry(db: Queryable): Promise<Date | undefined> {
  const { rows } = await db.query<{ at: Date | null }>('SELECT min(expiry_time) AS at FROM payout_expiry_queue');
  return rows[0]?.at ?? undefined;
}

/** Submissions recorded before `before` whose answer was never applied (crash, timeout), oldest first. */
export async function unfinishedSubmissions(db: Queryable, before: Date, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ payoutId: string }>(
    `SELECT payout_id AS "payoutId" FROM payouts WHERE submission_state = 'SUBMITTING' AND initiate_time < $1 ORDER BY initiate_time LIMIT $2`,
    [before, limit],
  );
  return rows.map((r) => r.payoutId);
}

/** When the oldest unfinished submission was recorded, if there is one. */
export async function oldestUnfinishedSubmission(db: Queryable): Promise<Date | undefined> {
  const { rows } = await db.query<{ at: Date | null }>(`SELECT min(initiate_time) AS at FROM payouts WHERE submission_state = 'SUBMITTING'`);
  return rows[0]?.at ?? undefined;
}
