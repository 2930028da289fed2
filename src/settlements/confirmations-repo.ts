// SQL of the destination side through the partner protocol: the notices sent to destination
// members, their confirmations, and the confirmations refused for review. Amounts enter and leave
// as exact decimal text.
import type { Queryable } from '../platform/database/pool.ts';

export interface NoticeRow {
  reference: string;
  settlementId: string;
  destinationMemberId: string;
  currency: string;
  /** Decimal text as stored (four decimals). */
  creditAmount: string;
  partnerNoticeId: string | null;
}

const NOTICE_COLUMNS = `reference, settlement_id AS "settlementId", destination_member_id AS "destinationMemberId", currency,
  credit_amount::text AS "creditAmount", partner_notice_id AS "partnerNoticeId"`;

/** Records the notice before it is sent; a repeat of the reference finds the first. */
export async function recordNotice(db: Queryable, notice: Omit<NoticeRow, 'partnerNoticeId'>): Promise<NoticeRow> {
  const { rows } = await db.query<NoticeRow>(
    `INSERT INTO settlement_notices (reference, settlement_id, destination_member_id, currency, credit_amount)
     VALUES ($1, $2, $3, $4, $5::numeric)
     ON CONFLICT (reference) DO UPDATE SET reference = EXCLUDED.reference RETURNING ${NOTICE_COLUMNS}`,
    [notice.reference, notice.settlementId, notice.destinationMemberId, notice.currency, notice.creditAmount],
  );
  return rows[0]!;
}

/** Keeps the partner's id of the notice; false when another id is already recorded for it. */
export async function recordPartnerNoticeId(db: Queryable, reference: string, partnerNoticeId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE settlement_notices SET partner_notice_id = $2 WHERE reference = $1 AND (partner_notice_id IS NULL OR partner_notice_id = $2)`,
    [reference, partnerNoticeId],
  );
  return rowCount === 1;
}

/** The notice by its reference or by its settlement (whichever is given; both must match when both are). */
export async function findNotice(db: Queryable, key: { reference?: string | undefined; settlementId?: string | undefined }): Promise<NoticeRow | undefined> {
  const { rows } = await db.query<NoticeRow>(
    `SELECT ${NOTICE_COLUMNS} FROM settlement_notices
      WHERE ($1::text IS NULL OR reference = $1) AND ($2::uuid IS NULL OR settlement_id = $2) AND ($1::text IS NOT NULL OR $2::uuid IS NOT NULL)`,
    [key.reference ?? null, key.settlementId ?? null],
  );
  return rows[0];
}

export interface ConfirmationRow {
  settlementId: string;
  destinationMemberId: string;
  /** Decimal text as stored (four decimals). */
  creditedAmount: string;
  currency: string;
  creditedAt: Date;
  partnerCreditId: string;
}

const CONFIRMATION_COLUMNS = `settlement_id AS "settlementId", destination_member_id AS "destinationMemberId",
  credited_amount::text AS "creditedAmount", currency, credited_at AS "creditedAt", partner_credit_id AS "partnerCreditId"`;

export interface NoticeStanding {
  settlementId: string;
  currency: string;
  creditAmount: string;
  /** Null until a confirmation is recorded. */
  creditedAmount: string | null;
  creditedCurrency: string | null;
}

/** The notice a partner answered with this id, and what its confirmation (if any) credited. */
export async function noticeStanding(db: Queryable, destinationMemberId: string, partnerNoticeId: string): Promise<NoticeStanding | undefined> {
  const { rows } = await db.query<NoticeStanding>(
    `SELECT n.settlement_id AS "settlementId", n.currency, n.credit_amount::text AS "creditAmount",
            c.credited_amount::text AS "creditedAmount", c.currency AS "creditedCurrency"
       FROM settlement_notices n LEFT JOIN settlement_confirmations c ON c.settlement_id = n.settlement_id
      WHERE n.destination_member_id = $1 AND n.partner_notice_id = $2`,
    [destinationMemberId, partnerNoticeId],
  );
  return rows[0];
}

/** Records the confirmation; undefined when one is already recorded for the settlement. */
export async function insertConfirmation(db: Queryable, c: Omit<ConfirmationRow, 'creditedAt'> & { creditedAt: string }): Promise<ConfirmationRow | undefined> {
  const { rows } = await db.query<ConfirmationRow>(
    `INSERT INTO settlement_confirmations (settlement_id, destination_member_id, credited_amount, currency, credited_at, partner_credit_id)
     VALUES ($1, $2, $3::numeric, $4, $5, $6) ON CONFLICT (settlement_id) DO NOTHING RETURNING ${CONFIRMATION_COLUMNS}`,
    [c.settlementId, c.destinationMemberId, c.creditedAmount, c.currency, c.creditedAt, c.partnerCreditId],
  );
  return rows[0];
}

export async function findConfirmation(db: Queryable, settlementId: string): Promise<ConfirmationRow | undefined> {
  const { rows } = await db.query<ConfirmationRow>(`SELECT ${CONFIRMATION_COLUMNS} FROM settlement_confirmations WHERE settlement_id = $1`, [settlementId]);
  return rows[0];
}

export type ConfirmationRefusalReason = 'AMOUNT_MISMATCH' | 'CONFIRMATION_CHANGED';

/** Keeps a refused confirmation, as received, for an operator. */
export async function recordRefusedConfirmation(db: Queryable, reason: ConfirmationRefusalReason,
  c: { settlementId: string; destinationMemberId: string; creditedAmount: string; currency: string; creditedAt: string; partnerCreditId: string }): Promise<void> {
  await db.query(
    `INSERT INTO settlement_confirmation_refusals (settlement_id, destination_member_id, reason, credited_amount, currency, credited_at, partner_credit_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [c.settlementId, c.destinationMemberId, reason, c.creditedAmount, c.currency, c.creditedAt, c.partnerCreditId],
  );
}

/** The enabled connection's base URL of a destination member, if any. */
export async function partnerBaseUrl(db: Queryable, destinationMemberId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ baseUrl: string }>(
    'SELECT base_url AS "baseUrl" FROM partner_connections WHERE destination_member_id = $1 AND enabled', [destinationMemberId]);
  return rows[0]?.baseUrl;
}
