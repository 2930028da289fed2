// SQL of operators' prefund movements (the ledger transfers themselves: ledger/).
import type { Queryable } from '../platform/database/pool.ts';

export type Direction = 'CREDIT' | 'DEBIT';

export interface Movement {
  operatorReference: string;
  direction: Direction;
  sourceMemberId: string;
  destinationMemberId: string;
  currency: string;
  /** Exact decimal text with the currency's decimals. */
  amount: string;
  reason: string;
  actor: string;
  transferId: string;
  createdAt: Date;
}

const COLUMNS = `operator_reference AS "operatorReference", direction, source_member_id AS "sourceMemberId",
  destination_member_id AS "destinationMemberId", currency, amount::text AS amount, reason, actor,
  transfer_id AS "transferId", created_at AS "createdAt"`;

export async function findMovement(db: Queryable, operatorReference: string): Promise<Movement | undefined> {
  const { rows } = await db.query<Movement>(`SELECT ${COLUMNS} FROM operator_prefund_movements WHERE operator_reference = $1`, [operatorReference]);
  return rows[0];
}

/**
 * Records a movement; undefined when its reference is taken. A concurrent insert of the same
 * reference waits for the first to commit, then finds it taken.
 */
export async function insertMovement(db: Queryable, m: Omit<Movement, 'createdAt'>): Promise<Movement | undefined> {
  const { rows } = await db.query<Movement>(
    `INSERT INTO operator_prefund_movements (operator_reference, direction, source_member_id, destination_member_id, currency, amount, reason, actor, transfer_id)
     VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $9)
     ON CONFLICT (operator_reference) DO NOTHING RETURNING ${COLUMNS}`,
    [m.operatorReference, m.direction, m.sourceMemberId, m.destinationMemberId, m.currency, m.amount, m.reason, m.actor, m.transferId],
  );
  return rows[0];
}
