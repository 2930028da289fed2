// All SQL of the partner area: connections, partner keys and reports (the audit rows: audit/repo.ts).
import type { Queryable } from '../platform/database/pool.ts';
import type { ReportStatus } from './protocol.ts';

export interface ConnectionRow {
  destinationMemberId: string;
  baseUrl: string;
  enabled: boolean;
  updatedAt: Date;
}

const CONNECTION_COLUMNS = `destination_member_id AS "destinationMemberId", base_url AS "baseUrl", enabled, updated_at AS "updatedAt"`;

export async function listConnections(db: Queryable): Promise<ConnectionRow[]> {
  const { rows } = await db.query<ConnectionRow>(`SELECT ${CONNECTION_COLUMNS} FROM partner_connections ORDER BY destination_member_id`);
  return rows;
}

export async function lockConnection(db: Queryable, memberId: string): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(`SELECT ${CONNECTION_COLUMNS} FROM partner_connections WHERE destination_member_id = $1 FOR UPDATE`, [memberId]);
  return rows[0];
}

export async function upsertConnection(db: Queryable, memberId: string, baseUrl: string, enabled: boolean): Promise<ConnectionRow> {
  const { rows } = await db.query<ConnectionRow>(
    `INSERT INTO partner_connections (destination_member_id, base_url, enabled) VALUES ($1, $2, $3)
     ON CONFLICT (destination_member_id) DO UPDATE SET base_url = excluded.base_url, enabled = excluded.enabled, updated_at = now()
     RETURNING ${CONNECTION_COLUMNS}`,
    [memberId, baseUrl, enabled],
  );
  return rows[0]!;
}

export async function memberKind(db: Queryable, memberId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ kind: string }>('SELECT kind FROM members WHERE member_id = $1', [memberId]);
  return rows[0]?.kind;
}

export interface KeyRow {
  keyId: string;
  destinationMemberId: string;
  publicKey: Buffer;
  status: 'ACTIVE' | 'RETIRED';
  createdAt: Date;
  retiredAt: Date | null;
}

const KEY_COLUMNS = `key_id AS "keyId", destination_member_id AS "destinationMemberId", public_key AS "publicKey", status,
  created_at AS "createdAt", retired_at AS "retiredAt"`;

export async function findKey(db: Queryable, keyId: string): Promise<KeyRow | undefined> {
  const { rows } = await db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM partner_keys WHERE key_id = $1`, [keyId]);
  return rows[0];
}

export async function lockKey(db: Queryable, keyId: string): Promise<KeyRow | undefined> {
  const { rows } = await db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM partner_keys WHERE key_id = $1 FOR UPDATE`, [keyId]);
  return rows[0];
}

export async function listKeys(db: Queryable, memberId: string | undefined): Promise<KeyRow[]> {
  const { rows } = await db.query<KeyRow>(
    `SELECT ${KEY_COLUMNS} FROM partner_keys WHERE $1::text IS NULL OR destination_member_id = $1 ORDER BY destination_member_id, created_at, key_id`,
    [memberId ?? null],
  );
  return rows;
}

/** Inserts a new ACTIVE key; undefined when the key id is taken. */
export async function insertKey(db: Queryable, keyId: string, memberId: string, publicKey: Buffer): Promise<KeyRow | undefined> {
  const { rows } = await db.query<KeyRow>(
    `INSERT INTO partner_keys (key_id, destination_member_id, public_key, status) VALUES ($1, $2, $3, 'ACTIVE')
     ON CONFLICT (key_id) DO NOTHING RETURNING ${KEY_COLUMNS}`,
    [keyId, memberId, publicKey],
  );
  return rows[0];
}

export async function retireKey(db: Queryable, keyId: string): Promise<KeyRow> {
  const { rows } = await db.query<KeyRow>(
    `UPDATE partner_keys SET status = 'RETIRED', retired_at = now() WHERE key_id = $1 RETURNING ${KEY_COLUMNS}`,
    [keyId],
  );
  return rows[0]!;
}

export async function payoutDestination(db: Queryable, payoutId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ memberId: string }>('SELECT destination_member_id AS "memberId" FROM payouts WHERE payout_id = $1', [payoutId]);
  return rows[0]?.memberId;
}

export interface ReportRow {
  reportId: string;
  payoutId: string;
  status: ReportStatus;
  sequence: string;
  occurredAt: Date;
  rejectReason: string | null;
  cashoutStatus: string | null;
  applied: boolean;
}

export interface NewReport {
  memberId: string;
  reportId: string;
  payoutId: string;
  status: ReportStatus;
  sequence: number;
  occurredAt: string;
  rejectReason: string | undefined;
  cashoutStatus: string | undefined;
}

const REPORT_COLUMNS = `report_id AS "reportId", payout_id AS "payoutId", status, sequence::text AS sequence, occurred_at AS "occurredAt",
  reject_reason AS "rejectReason", cashout_status AS "cashoutStatus", applied`;

export async function findReport(db: Queryable, memberId: string, reportId: string): Promise<ReportRow | undefined> {
  const { rows } = await db.query<ReportRow>(
    `SELECT ${REPORT_COLUMNS} FROM partner_reports WHERE destination_member_id = $1 AND report_id = $2`,
    [memberId, reportId],
  );
  return rows[0];
}

/**
 * Records a report; undefined when (partner, report id) is already recorded. A concurrent insert
 * of the same id waits for the first to commit, then finds it.
 */
export async function insertReport(db: Queryable, report: NewReport, applied: boolean): Promise<ReportRow | undefined> {
  const { rows } = await db.query<ReportRow>(
    `INSERT INTO partner_reports (destination_member_id, report_id, payout_id, status, sequence, occurred_at, reject_reason, cashout_status, applied)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (destination_member_id, report_id) DO NOTHING RETURNING ${REPORT_COLUMNS}`,
    [report.memberId, report.reportId, report.payoutId, report.status, report.sequence, report.occurredAt,
      report.rejectReason ?? null, report.cashoutStatus ?? null, applied],
  );
  return rows[0];
}

/** Raises the payout's applied sequence to `sequence`; false when it already stood at or above it. */
export async function advanceReportHead(db: Queryable, payoutId: string, sequence: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO partner_report_heads (payout_id, sequence_max) VALUES ($1, $2)
     ON CONFLICT (payout_id) DO UPDATE SET sequence_max = excluded.sequence_max
     WHERE partner_report_heads.sequence_max < excluded.sequence_max`,
    [payoutId, sequence],
  );
  return rowCount === 1;
}

export async function markApplied(db: Queryable, memberId: string, reportId: string): Promise<void> {
  await db.query('UPDATE partner_reports SET applied = true WHERE destination_member_id = $1 AND report_id = $2', [memberId, reportId]);
}
