// SQL for account statements: the movements of one account, in movement-number order (migration
// 0023). A transfer moves an account once when it is created and, if two-phase, again when it is
// posted or voided. What each movement changes is decided here, once, for pages and sums alike.
import type { Queryable } from '../platform/database/pool.ts';

export type MovementPhase = 'CREATED' | 'POSTED' | 'VOIDED';

export interface MovementRow {
  /** The movement number (bigint as text): the order of the statement. */
  seq: string;
  transferId: string;
  phase: MovementPhase;
  twoPhase: boolean;
  /** When the movement was recorded (the time of the transaction that made it). */
  at: Date;
  reason: string;
  reference: string;
  /** What the movement changes, in minor units, signed: the posted balance and the available balance. */
  balanceChange: bigint;
  availableChange: bigint;
}

interface Branch {
  account: 'debit_account_id' | 'credit_account_id';
  seq: 'created_seq' | 'resolved_seq';
  at: 'created_at' | 'resolved_at';
  phase: string;
  balance: string;
  available: string;
}

// Constant SQL fragments (never values). A reservation (two-phase debit) moves the available
// balance when created; its post moves the balance, its void gives the available balance back.
// A transfer posted at once moves both. (A no-overdraft account never takes a two-phase credit:
// those branches are there so that the rule is complete, not because they occur.)
const BRANCHES: Branch[] = [
  { account: 'debit_account_id', seq: 'created_seq', at: 'created_at', phase: `'CREATED'`,
    balance: 'CASE WHEN two_phase THEN 0 ELSE -amount END', available: '-amount' },
  { account: 'credit_account_id', seq: 'created_seq', at: 'created_at', phase: `'CREATED'`,
    balance: 'CASE WHEN two_phase THEN 0 ELSE amount END', available: 'CASE WHEN two_phase THEN 0 ELSE amount END' },
  { account: 'debit_account_id', seq: 'resolved_seq', at: 'resolved_at', phase: 'state',
    balance: `CASE WHEN state = 'POSTED' THEN -amount ELSE 0 END`, available: `CASE WHEN state = 'VOIDED' THEN amount ELSE 0 END` },
  { account: 'credit_account_id', seq: 'resolved_seq', at: 'resolved_at', phase: 'state',
    balance: `CASE WHEN state = 'POSTED' THEN amount ELSE 0 END`, available: `CASE WHEN state = 'POSTED' THEN amount ELSE 0 END` },
];

const select = (b: Branch) =>
  `SELECT ${b.seq} AS seq, transfer_id, ${b.phase} AS phase, two_phase, ${b.at} AS at, reason, reference,
          ${b.balance} AS balance_change, ${b.available} AS available_change
     FROM ledger_transfers`;

type Order = 'ASC' | 'DESC';

/** $1 account, $2 exclusive bound on the movement number, $3 from (inclusive), $4 to (exclusive), $5 limit. */
function pageText(order: Order): string {
  const beyond = order === 'ASC' ? '>' : '<';
  const branches = BRANCHES.map((b) => `(${select(b)}
    WHERE ${b.account} = $1 AND ${b.seq} ${beyond} $2::bigint
      AND ($3::timestamptz IS NULL OR ${b.at} >= $3) AND ($4::timestamptz IS NULL OR ${b.at} < $4)
    ORDER BY ${b.seq} ${order} LIMIT $5)`);
  return `SELECT seq::text AS seq, transfer_id AS "transferId", phase, two_phase AS "twoPhase", at, reason, reference,
                 balance_change::text AS "balanceChange", available_change::text AS "availableChange"
            FROM (${branches.join(' UNION ALL ')}) m ORDER BY m.seq ${order} LIMIT $5`;
}

const PAGE_ASC = pageText('ASC');
const PAGE_DESC = pageText('DESC');
const SEQ_MAX = '9223372036854775807';

type RawMovement = Omit<MovementRow, 'balanceChange' | 'availableChange'> & { balanceChange: string; availableChange: string };

export interface MovementQuery {
  order: Order;
  /** Only movements beyond this number in the order (none: from the start of that order). */
  beyondSeq: string | null;
  from: Date | null;
  to: Date | null;
  limit: number;
}

export async function listMovements(db: Queryable, accountId: string, q: MovementQuery): Promise<MovementRow[]> {
  const { rows } = await db.query<RawMovement>({
    name: `ledger-movements-${q.order}`,
    text: q.order === 'ASC' ? PAGE_ASC : PAGE_DESC,
    values: [accountId, q.beyondSeq ?? (q.order === 'ASC' ? '0' : SEQ_MAX), q.from, q.to, q.limit],
  });
  return rows.map((r) => ({ ...r, balanceChange: BigInt(r.balanceChange), availableChange: BigInt(r.availableChange) }));
}

const SUM_AFTER = `SELECT coalesce(sum(balance_change), 0)::text AS balance, coalesce(sum(available_change), 0)::text AS available
  FROM (${BRANCHES.map((b) => `${select(b)} WHERE ${b.account} = $1 AND ${b.seq} > $2::bigint`).join(' UNION ALL ')}) m`;

/** What the movements numbered above `seq` changed, together. */
export async function changesAfter(db: Queryable, accountId: string, seq: string): Promise<{ balance: bigint; available: bigint }> {
  const { rows } = await db.query<{ balance: string; available: string }>({ name: 'ledger-movements-sum-after', text: SUM_AFTER, values: [accountId, seq] });
  return { balance: BigInt(rows[0]!.balance), available: BigInt(rows[0]!.available) };
}

/**
 * Locks the account FOR UPDATE for a statement read: this waits for every transaction that is
 * numbering a movement of it (they hold a weaker lock on it from before they number until they
 * commit) and keeps new ones out until the read's transaction ends. Answers whether it exists.
 */
export async function lockForStatement(db: Queryable, accountId: string): Promise<boolean> {
  const { rowCount } = await db.query({ name: 'ledger-lock-for-statement', text: 'SELECT 1 FROM ledger_accounts WHERE account_id = $1 FOR UPDATE', values: [accountId] });
  return rowCount === 1;
}
