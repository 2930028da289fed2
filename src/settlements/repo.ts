// SQL for the settlement area: corridor terms and rate locks. Rates leave and enter as exact
// decimal text.
import { isUuid } from '../platform/ids.ts';
import type { Queryable } from '../platform/database/pool.ts';
import type { NewEvent } from '../events/repo.ts';
import type { CorridorTerms } from '../members/repo.ts';

export interface RateRow {
  rateId: string;
  sourceMemberId: string;
  destinationMemberId: string;
  sourceCcy: string;
  destinationCcy: string;
  /** Decimal text per execution interval, IMMEDIATE first. */
  forecastRates: string[];
  midRate: string;
  spreadBps: number;
  createdAt: Date;
  expiryTime: Date;
  usedBy: string | null;
}

const RATE_COLUMNS = `rate_id AS "rateId", source_member_id AS "sourceMemberId", destination_member_id AS "destinationMemberId",
  source_ccy AS "sourceCcy", destination_ccy AS "destinationCcy", forecast_rates::text[] AS "forecastRates",
  mid_rate::text AS "midRate", spread_bps AS "spreadBps", created_at AS "createdAt", expiry_time AS "expiryTime", used_by AS "usedBy"`;

/**
 * Records rate locks without waiting for the disk (synchronous_commit off for this statement's
 * transaction): a lock lost with a database crash only means the client locks another (its rateId
 * is then RATE_NOT_FOUND). A settlement that uses the lock commits durably, and with it the lock.
 */
export async function insertRates(db: Queryable, rates: Array<Omit<RateRow, 'usedBy'>>): Promise<Map<string, RateRow>> {
  const column = <K extends keyof Omit<RateRow, 'usedBy'>>(key: K) => rates.map((r) => r[key]);
  const { rows } = await db.query<RateRow>({
    name: 'settlement-rates-insert',
    text: `WITH settings AS (SELECT set_config('synchronous_commit', 'off', true))
           INSERT INTO settlement_rates (rate_id, source_member_id, destination_member_id, source_ccy, destination_ccy,
             forecast_rates, mid_rate, spread_bps, created_at, expiry_time)
           SELECT r.rate_id, r.source_member_id, r.destination_member_id, r.source_ccy, r.destination_ccy,
                  ARRAY(SELECT f.e::numeric FROM jsonb_array_elements_text(r.forecast) WITH ORDINALITY AS f(e, i) ORDER BY f.i), r.mid_rate, r.spread_bps, r.created_at, r.expiry_time
             FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::numeric[], $8::int[], $9::timestamptz[], $10::timestamptz[])
                  AS r(rate_id, source_member_id, destination_member_id, source_ccy, destination_ccy, forecast, mid_rate, spread_bps, created_at, expiry_time),
                  settings
           RETURNING ${RATE_COLUMNS}`,
    values: [column('rateId'), column('sourceMemberId'), column('destinationMemberId'), column('sourceCcy'), column('destinationCcy'),
      rates.map((r) => JSON.stringify(r.forecastRates)), column('midRate'), column('spreadBps'), column('createdAt'), column('expiryTime')],
  });
  return new Map(rows.map((r) => [r.rateId, r]));
}


/** The member's rate lock, or undefined (also another member's, and a malformed id). */
export async function findRate(db: Queryable, sourceMemberId: string, rateId: string, forUpdate = false): Promise<RateRow | undefined> {
  if (!isUuid(rateId)) return undefined;
  const { rows } = await db.query<RateRow>(
    `SELECT ${RATE_COLUMNS} FROM settlement_rates WHERE rate_id = $1 AND source_member_id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [rateId, sourceMemberId],
  );
  return rows[0];
}

/** Ends a lock now (a lock that already ended keeps its expiry). */
export async function expireRate(db: Queryable, sourceMemberId: string, rateId: string, now: Date): Promise<RateRow | undefined> {
  if (!isUuid(rateId)) return undefined;
  const { rows } = await db.query<RateRow>(
    `UPDATE settlement_rates SET expiry_time = GREATEST(created_at, LEAST(expiry_time, $3))
      WHERE rate_id = $1 AND source_member_id = $2 RETURNING ${RATE_COLUMNS}`,
    [rateId, sourceMemberId, now],
  );
  return rows[0];
}

export interface SettlementRow {
  settlementId: string;
  sourceMemberId: string;
  destinationMemberId: string;
  sourceCcy: string;
  destinationCcy: string;
  /** Decimal text, source currency. */
  settlementAmt: string;
  pendingAmt: string;
  /** Decimal text. */
  rate: string;
  rateId: string;
  executionInterval: string;
  settlementStatus: string;
  /** Decimal text, destination currency; set on completion. */
  settlementAmtReceived: string | null;
  notes: string | null;
  failureReason: string | null;
  creationTime: Date;
  dueDate: Date;
  completionTime: Date | null;
  eventSequence: number;
}

const SETTLEMENT_COLUMNS = `settlement_id AS "settlementId", source_member_id AS "sourceMemberId",
  destination_member_id AS "destinationMemberId", source_ccy AS "sourceCcy", destination_ccy AS "destinationCcy",
  settlement_amt::text AS "settlementAmt", pending_amt::text AS "pendingAmt", rate::text AS rate, rate_id AS "rateId",
  execution_interval AS "executionInterval", settlement_status AS "settlementStatus",
  settlement_amt_received::text AS "settlementAmtReceived", notes, failure_reason AS "failureReason",
  creation_time AS "creationTime", due_date AS "dueDate", completion_time AS "completionTime", event_sequence AS "eventSequence"`;
export { SETTLEMENT_COLUMNS };

/**
 * Inserts a new settlement, marks its (locked, unused) rate as used by it and writes its first
 * event, in one statement.
 */
export async function insertSettlement(db: Queryable, s: SettlementRow, firstEvent: NewEvent): Promise<void> {
  const { rows } = await db.query<{ used: number }>({
    name: 'settlements-insert',
    text: `WITH inserted AS (
             INSERT INTO settlements (settlement_id, source_member_id, destination_member_id, source_ccy, destination_ccy,
               settlement_amt, pending_amt, rate, rate_id, execution_interval, settlement_status, notes, creation_time, due_date, event_sequence)
             VALUES ($1, $2, $3, $4, $5, $6::numeric, $7::numeric, $8::numeric, $9, $10, $11, $12, $13, $14, $15)
             RETURNING settlement_id, rate_id),
           used AS (
             UPDATE settlement_rates r SET used_by = i.settlement_id FROM inserted i
              WHERE r.rate_id = i.rate_id AND r.used_by IS NULL RETURNING 1),
           event AS (
             INSERT INTO events (member_id, type, resource_id, sequence, data)
             SELECT $2, $16, settlement_id::text, $15, $17::jsonb FROM inserted)
           SELECT count(*)::int AS used FROM used`,
    values: [s.settlementId, s.sourceMemberId, s.destinationMemberId, s.sourceCcy, s.destinationCcy, s.settlementAmt, s.pendingAmt,
      s.rate, s.rateId, s.executionInterval, s.settlementStatus, s.notes, s.creationTime, s.dueDate, s.eventSequence,
      firstEvent.type, JSON.stringify(firstEvent.data)],
  });
  if (rows[0]?.used !== 1) throw new Error(`rate ${s.rateId} is already used`);
}

/** The member's settlement, or undefined (also another member's, and a malformed id). */
export async function findSettlement(db: Queryable, sourceMemberId: string, settlementId: string): Promise<SettlementRow | undefined> {
  if (!isUuid(settlementId)) return undefined;
  const { rows } = await db.query<SettlementRow>(
    `SELECT ${SETTLEMENT_COLUMNS} FROM settlements WHERE settlement_id = $1 AND source_member_id = $2`,
    [settlementId, sourceMemberId],
  );
  return rows[0];
}

/** A settlement as the pipeline sees it, with the sandbox's fail flag. */
export type PipelineRow = SettlementRow & { failNextStep: boolean };

/** The settlement by id alone (the pipeline's view), locked (FOR UPDATE) when asked. */
export async function readSettlement(db: Queryable, settlementId: string, forUpdate = false): Promise<PipelineRow | undefined> {
  const { rows } = await db.query<PipelineRow>(
    `SELECT ${SETTLEMENT_COLUMNS}, fail_next_step AS "failNextStep" FROM settlements WHERE settlement_id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [settlementId],
  );
  return rows[0];
}

export const lockSettlement = (db: Queryable, settlementId: string) => readSettlement(db, settlementId, true);

/** Writes a (locked) settlement's moving parts. */
export async function updateSettlement(db: Queryable, s: SettlementRow, failNextStep: boolean): Promise<void> {
  await db.query(
    `UPDATE settlements SET settlement_status = $2, pending_amt = $3::numeric, settlement_amt_received = $4::numeric,
            completion_time = $5, failure_reason = $6, event_sequence = $7, fail_next_step = $8
      WHERE settlement_id = $1`,
    [s.settlementId, s.settlementStatus, s.pendingAmt, s.settlementAmtReceived, s.completionTime, s.failureReason, s.eventSequence, failNextStep],
  );
}

export async function setFailNextStep(db: Queryable, settlementId: string): Promise<void> {
  await db.query('UPDATE settlements SET fail_next_step = true WHERE settlement_id = $1', [settlementId]);
}

/** A venue call's intent (*_REQUESTED, recorded before the call) or what it answered. */
export type Step =
  | 'BUY_REQUESTED' | 'BUY' | 'TRANSFER_REQUESTED' | 'TRANSFER' | 'TRANSFER_CONFIRMED'
  | 'SWAP_REQUESTED' | 'SWAP' | 'WITHDRAWAL_REQUESTED' | 'WITHDRAWAL' | 'WITHDRAWAL_CONFIRMED';
export type Steps = Map<Step, Record<string, string | number | null>>;

export async function readSteps(db: Queryable, settlementId: string): Promise<Steps> {
  const { rows } = await db.query<{ step: Step; result: Record<string, string | number | null> }>(
    'SELECT step, result FROM settlement_steps WHERE settlement_id = $1',
    [settlementId],
  );
  return new Map(rows.map((r) => [r.step, r.result]));
}

/** Records a step's result once; false when it was already recorded. */
export async function recordStep(db: Queryable, settlementId: string, step: Step, result: object, now: Date): Promise<boolean> {
  const inserted = await db.query(
    `INSERT INTO settlement_steps (settlement_id, step, result, done_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
    [settlementId, step, JSON.stringify(result), now],
  );
  return inserted.rowCount === 1;
}

export interface SettlementListCriteria {
  sourceMemberId: string;
  destinationMemberId?: string;
  settlementStatus?: string;
  createdAfter?: Date;
  sortField: string;
  sortDirection: 'asc' | 'desc';
  limit: number;
  offset: number;
}

// Only these texts are placed into the statement; every value is a bind parameter.
const SETTLEMENT_SORT: Record<string, string> = {
  settlementAmt: 's.settlement_amt', completionTime: 's.completion_time', settlementAmtReceived: 's.settlement_amt_received',
  destinationMemberId: 's.destination_member_id COLLATE "C"', rate: 's.rate', settlementStatus: 's.settlement_status COLLATE "C"',
  settlementId: 's.settlement_id', creationTime: 's.creation_time', destinationCcy: 's.destination_ccy COLLATE "C"',
};

/** One page of the member's settlements and the count of all that match, in one statement. */
export async function listSettlementRows(db: Queryable, c: SettlementListCriteria): Promise<{ rows: SettlementRow[]; totalRecords: number }> {
  const sort = SETTLEMENT_SORT[c.sortField];
  const direction = c.sortDirection === 'asc' ? 'ASC' : 'DESC';
  if (!sort) throw new Error(`settlement list: unsupported sort field ${c.sortField}`);
  const where = `source_member_id = $1 AND ($2::text IS NULL OR destination_member_id = $2)
    AND ($3::text IS NULL OR settlement_status = $3) AND ($4::timestamptz IS NULL OR creation_time > $4)`;
  const values = [c.sourceMemberId, c.destinationMemberId ?? null, c.settlementStatus ?? null, c.createdAfter ?? null];
  const { rows } = await db.query<SettlementRow & { totalRecords: string }>(
    `SELECT ${SETTLEMENT_COLUMNS}, count(*) OVER () AS "totalRecords" FROM settlements s WHERE ${where}
      ORDER BY ${sort} ${direction} NULLS LAST, s.creation_time ${direction}, s.settlement_id ${direction}
      LIMIT $5 OFFSET $6`,
    [...values, c.limit, c.offset],
  );
  if (rows[0] || c.offset === 0) return { rows, totalRecords: Number(rows[0]?.totalRecords ?? 0) };
  // a page past the end has no row to carry the count
  const { rows: counted } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM settlements WHERE ${where}`, values);
  return { rows: [], totalRecords: Number(counted[0]?.n ?? 0) };
}

export interface CorridorFigures extends CorridorTerms {
  destinationMemberId: string;
  /** Decimal text, source currency: the pendingAmt of the corridor's unfinished settlements. */
  inFlightAmt: string;
}

/** Every corridor of the source member with what is in flight on it. */
export async function corridorFigures(db: Queryable, sourceMemberId: string): Promise<CorridorFigures[]> {
  const { rows } = await db.query<CorridorFigures>(
    `SELECT c.destination_member_id AS "destinationMemberId", s.currencies[1] AS "sourceCcy", c.destination_ccy AS "destinationCcy",
            c.active, c.max_settlement_amt::text AS "maxSettlementAmt", c.rate_spread_bps AS "rateSpreadBps",
            coalesce((SELECT sum(x.pending_amt) FROM settlements x
                       WHERE x.source_member_id = c.source_member_id AND x.destination_member_id = c.destination_member_id
                         AND x.destination_ccy = c.destination_ccy
                         AND x.settlement_status IN ('S100_SCHEDULED', 'S200_RECEIVED', 'S300_IN_PROGRESS', 'S400_FIAT_WITHDRAWAL_IN_PROGRESS')), 0)::text AS "inFlightAmt"
       FROM corridors c JOIN members s ON s.member_id = c.source_member_id
      WHERE c.source_member_id = $1
      ORDER BY c.destination_member_id, c.destination_ccy`,
    [sourceMemberId],
  );
  return rows;
}

/** When a step was recorded, or undefined. */
export async function stepDoneAt(db: Queryable, settlementId: string, step: Step): Promise<Date | undefined> {
  const { rows } = await db.query<{ doneAt: Date }>('SELECT done_at AS "doneAt" FROM settlement_steps WHERE settlement_id = $1 AND step = $2', [settlementId, step]);
  return rows[0]?.doneAt;
}
