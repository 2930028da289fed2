// SQL for members and corridors.
import type { Queryable } from '../platform/database/pool.ts';

export type MemberKind = 'SOURCE' | 'DESTINATION';

export interface Member {
  memberId: string;
  name: string;
  kind: MemberKind;
  countryCode: string;
  currencies: string[];
}

export interface Corridor {
  sourceMemberId: string;
  destinationMemberId: string;
  destinationCcy: string;
  active: boolean;
  /** Decimal text, exact (NUMERIC). */
  maxSettlementAmt: string;
}

const MEMBER_COLUMNS = `member_id AS "memberId", name, kind, country_code AS "countryCode", currencies`;
const CORRIDOR_COLUMNS = `source_member_id AS "sourceMemberId", destination_member_id AS "destinationMemberId",
  destination_ccy AS "destinationCcy", active, max_settlement_amt::text AS "maxSettlementAmt"`;

export async function findMember(db: Queryable, memberId: string): Promise<Member | undefined> {
  const { rows } = await db.query<Member>(`SELECT ${MEMBER_COLUMNS} FROM members WHERE member_id = $1`, [memberId]);
  return rows[0];
}

export async function listMembers(db: Queryable, kind?: MemberKind): Promise<Member[]> {
  const { rows } = await db.query<Member>(
    `SELECT ${MEMBER_COLUMNS} FROM members WHERE ($1::text IS NULL OR kind = $1) ORDER BY kind DESC, member_id`,
    [kind ?? null],
  );
  return rows;
}

/** Inserts a member; returns false when the id is taken. */
export async function insertMember(db: Queryable, member: Member): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO members (member_id, name, kind, country_code, currencies) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (member_id) DO NOTHING`,
    [member.memberId, member.name, member.kind, member.countryCode, member.currencies],
  );
  return result.rowCount === 1;
}

export async function listCorridors(db: Queryable, sourceMemberId?: string): Promise<Corridor[]> {
  const { rows } = await db.query<Corridor>(
    `SELECT ${CORRIDOR_COLUMNS} FROM corridors WHERE ($1::text IS NULL OR source_member_id = $1)
     ORDER BY source_member_id, destination_member_id, destination_ccy`,
    [sourceMemberId ?? null],
  );
  return rows;
}

/** The corridor's row, locked until the transaction ends (an operator's change reads what it replaces). */
export async function lockCorridor(db: Queryable, sourceMemberId: string, destinationMemberId: string, destinationCcy: string): Promise<Corridor | undefined> {
  const { rows } = await db.query<Corridor>(
    `SELECT ${CORRIDOR_COLUMNS} FROM corridors WHERE source_member_id = $1 AND destination_member_id = $2 AND destination_ccy = $3 FOR UPDATE`,
    [sourceMemberId, destinationMemberId, destinationCcy],
  );
  return rows[0];
}

export async function upsertCorridor(db: Queryable, corridor: Corridor): Promise<Corridor> {
  const { rows } = await db.query<Corridor>(
    `INSERT INTO corridors (source_member_id, destination_member_id, destination_ccy, active, max_settlement_amt)
     VALUES ($1, $2, $3, $4, $5::numeric)
     ON CONFLICT (source_member_id, destination_member_id, destination_ccy)
     DO UPDATE SET active = EXCLUDED.active, max_settlement_amt = EXCLUDED.max_settlement_amt, updated_at = now()
     RETURNING ${CORRIDOR_COLUMNS}`,
    [corridor.sourceMemberId, corridor.destinationMemberId, corridor.destinationCcy, corridor.active, corridor.maxSettlementAmt],
  );
  return rows[0]!;
}

export async function countMembers(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM members');
  return Number(rows[0]?.n ?? 0);
}

/** Destination members with at least one active corridor from the source member. */
export async function listActiveDestinations(db: Queryable, sourceMemberId: string): Promise<Member[]> {
  const { rows } = await db.query<Member>(
    `SELECT ${MEMBER_COLUMNS} FROM members m
      WHERE m.kind = 'DESTINATION'
        AND EXISTS (SELECT 1 FROM corridors c WHERE c.destination_member_id = m.member_id AND c.source_member_id = $1 AND c.active)
      ORDER BY m.member_id`,
    [sourceMemberId],
  );
  return rows;
}

export interface CorridorTerms {
  sourceCcy: string;
  destinationCcy: string;
  active: boolean;
  /** Decimal text, source currency. */
  maxSettlementAmt: string;
  rateSpreadBps: number;
}

/** A source member's corridors to a destination member (one per destination currency), with its source currency. */
export async function corridorTerms(db: Queryable, sourceMemberId: string, destinationMemberId: string): Promise<CorridorTerms[]> {
  const { rows } = await db.query<CorridorTerms>({
    name: 'settlements-corridor-terms',
    text: `SELECT s.currencies[1] AS "sourceCcy", c.destination_ccy AS "destinationCcy", c.active,
                  c.max_settlement_amt::text AS "maxSettlementAmt", c.rate_spread_bps AS "rateSpreadBps"
             FROM corridors c JOIN members s ON s.member_id = c.source_member_id
            WHERE c.source_member_id = $1 AND c.destination_member_id = $2
            ORDER BY c.destination_ccy`,
    values: [sourceMemberId, destinationMemberId],
  });
  return rows;
}

/** The destination member's wallet (where a settlement's stablecoin goes), or null when none is set. */
export async function walletAddressOf(db: Queryable, memberId: string): Promise<string | null | undefined> {
  const { rows } = await db.query<{ walletAddress: string | null }>(
    `SELECT wallet_address AS "walletAddress" FROM members WHERE member_id = $1 AND kind = 'DESTINATION'`, [memberId]);
  return rows[0]?.walletAddress;
}

/** Sets a destination member's wallet; answers the address before, or undefined when no such destination member. */
export async function setWalletAddress(db: Queryable, memberId: string, walletAddress: string): Promise<{ before: string | null } | undefined> {
  const { rows } = await db.query<{ before: string | null }>(
    `UPDATE members m SET wallet_address = $2 FROM (SELECT wallet_address FROM members WHERE member_id = $1 FOR UPDATE) old
      WHERE m.member_id = $1 AND m.kind = 'DESTINATION' RETURNING old.wallet_address AS before`,
    [memberId, walletAddress],
  );
  return rows[0];
}

/** Gives every listed destination member without a wallet this one (the sandbox seed). */
export async function seedWalletAddresses(db: Queryable, memberIds: string[], walletAddress: string): Promise<void> {
  await db.query(`UPDATE members SET wallet_address = $2 WHERE member_id = ANY($1) AND kind = 'DESTINATION' AND wallet_address IS NULL`, [memberIds, walletAddress]);
}
