// SQL for the ledger. Amounts cross this boundary as bigint minor units (NUMERIC text in SQL).
import type { Queryable } from '../platform/database/pool.ts';
import { accountKey, mayOverdraw, type AccountSpec } from './accounts.ts';

export interface AccountRow {
  accountId: string;
  noOverdraft: boolean;
  /** All debits not voided: pending and posted. */
  debitsCommitted: bigint;
  /** All credits not voided: pending and posted. */
  creditsCommitted: bigint;
}

export interface TransferRow {
  transferId: string;
  debitAccountId: string;
  creditAccountId: string;
  amount: bigint;
  currency: string;
  state: 'PENDING' | 'POSTED' | 'VOIDED';
  twoPhase: boolean;
  reason: string;
  reference: string;
}

export interface TotalsDelta {
  debits: bigint;
  credits: bigint;
}

/** Account ids for the specs, creating the accounts that do not exist yet. */
export async function ensureAccounts(db: Queryable, specs: AccountSpec[]): Promise<Map<string, string>> {
  const unique = [...new Map(specs.map((s) => [accountKey(s), s])).values()];
  const columns = [
    unique.map((s) => s.kind),
    unique.map((s) => s.sourceMemberId),
    unique.map((s) => s.destinationMemberId),
    unique.map((s) => s.currency),
    unique.map((s) => !mayOverdraw(s)),
  ];
  await db.query(
    `INSERT INTO ledger_accounts (kind, source_member_id, destination_member_id, currency, no_overdraft)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[])
     ON CONFLICT DO NOTHING`,
    columns,
  );
  return findAccountIds(db, unique);
}

const ACCOUNT_COLUMNS = `account_id AS "accountId", no_overdraft AS "noOverdraft",
  debits_committed::text AS "debitsCommitted", credits_committed::text AS "creditsCommitted"`;

type RawAccount = Omit<AccountRow, 'debitsCommitted' | 'creditsCommitted'> & Record<'debitsCommitted' | 'creditsCommitted', string>;

const toAccount = (r: RawAccount): AccountRow => ({
  ...r,
  debitsCommitted: BigInt(r.debitsCommitted),
  creditsCommitted: BigInt(r.creditsCommitted),
});

/**
 * Locks the accounts, always in account_id order so that concurrent writers cannot deadlock.
 * FOR NO KEY UPDATE (what an UPDATE of the totals takes anyway): writers queue on each other, while
 * posts, which only share-lock the account (lockForPosting), do not queue on them.
 */
export async function lockAccounts(db: Queryable, accountIds: string[]): Promise<Map<string, AccountRow>> {
  const { rows } = await db.query<RawAccount>({
    name: 'ledger-lock-accounts',
    text: `SELECT ${ACCOUNT_COLUMNS} FROM ledger_accounts WHERE account_id = ANY($1::bigint[]) ORDER BY account_id FOR NO KEY UPDATE`,
    values: [accountIds],
  });
  return new Map(rows.map((r) => [r.accountId, toAccount(r)]));
}

const TRANSFER_INSERT = `INSERT INTO ledger_transfers (transfer_id, debit_account_id, credit_account_id, amount, currency, state, two_phase, reason, reference)
  SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::numeric[], $5::text[], $6::text[], $7::boolean[], $8::text[], $9::text[])`;

const transferColumns = (transfers: TransferRow[]) => [
  transfers.map((t) => t.transferId),
  transfers.map((t) => t.debitAccountId),
  transfers.map((t) => t.creditAccountId),
  transfers.map((t) => t.amount.toString()),
  transfers.map((t) => t.currency),
  transfers.map((t) => t.state),
  transfers.map((t) => t.twoPhase),
  transfers.map((t) => t.reason),
  transfers.map((t) => t.reference),
];

const totalsColumns = (deltas: Map<string, TotalsDelta>) => {
  const ids = [...deltas.keys()];
  const column = (pick: (d: TotalsDelta) => bigint) => ids.map((id) => pick(deltas.get(id)!).toString());
  return [ids, column((d) => d.debits), column((d) => d.credits)];
};

/**
 * The write of account totals turns on ledger.writing for its transaction in the statement itself
 * (migration 0030: totals change only with their transfers). The subquery runs before any row is
 * updated, so the guard trigger sees it on.
 */
const WRITING = `(SELECT set_config('ledger.writing', 'on', true)) AS writing`;

/** Thrown when a ledger statement touches another number of rows than it must: its transaction rolls back. */
export class LedgerRowCountError extends Error {}

function expectRows(what: string, expected: number, actual: number): void {
  if (actual !== expected) throw new LedgerRowCountError(`ledger ${what}: ${actual} rows where ${expected} were expected`);
}

/** New transfers and the account totals they move, in one statement (one round trip for the hot path). */
export async function recordTransfers(db: Queryable, transfers: TransferRow[], deltas: Map<string, TotalsDelta>): Promise<void> {
  if (transfers.length === 0 && deltas.size === 0) return;
  const result = await db.query<{ inserted: string }>({
    name: 'ledger-record-transfers',
    text: `WITH inserted AS (${TRANSFER_INSERT} RETURNING 1)
     UPDATE ledger_accounts a SET debits_committed = a.debits_committed + d.dr, credits_committed = a.credits_committed + d.cr
       FROM unnest($10::bigint[], $11::numeric[], $12::numeric[]) AS d(id, dr, cr), ${WRITING}
      WHERE a.account_id = d.id
      RETURNING (SELECT count(*) FROM inserted)::text AS inserted`,
    values: [...transferColumns(transfers), ...totalsColumns(deltas)],
  });
  expectRows('account totals of new transfers', deltas.size, result.rowCount ?? 0);
  expectRows('new transfers', transfers.length, Number(result.rows[0]?.inserted ?? 0));
}

/**
 * Reservations written inside a caller's statement (one round trip, no transaction of its own),
 * as CTEs: of `transfers` (a jsonb parameter of prepareReservations' rows, e.g. '$3'), those whose
 * reference is among `references` (a query yielding text, e.g. the ids a payout insert returned);
 * their accounts locked in account order (LOCK ORDER: after the caller's domain rows), then the
 * transfers inserted (the locks are an InitPlan of the insert, so its movement numbers follow
 * them), then the totals moved, ledger.writing on as in recordTransfers. An account left
 * overdrawn fails the statement (constraint ledger_accounts_no_overdraft, SQLSTATE 23514), and
 * nothing of it stays. Yields `reserved` (each transfer written).
 */
export function reservationCtes(transfers: string, references: string): string {
  return `reservation_input AS (
             SELECT r.* FROM jsonb_to_recordset(${transfers}::jsonb) AS r(transfer_id uuid, debit_account_id bigint, credit_account_id bigint,
               amount numeric, currency text, reason text, reference text)
              WHERE r.reference IN (${references})),
           reservation_locks AS (
             SELECT a.account_id FROM ledger_accounts a
              WHERE a.account_id IN (SELECT debit_account_id FROM reservation_input UNION SELECT credit_account_id FROM reservation_input)
              ORDER BY a.account_id FOR NO KEY UPDATE),
           reserved AS (
             INSERT INTO ledger_transfers (transfer_id, debit_account_id, credit_account_id, amount, currency, state, two_phase, reason, reference)
             SELECT transfer_id, debit_account_id, credit_account_id, amount, currency, 'PENDING', true, reason, reference
               FROM reservation_input WHERE (SELECT count(*) FROM reservation_locks) >= 0
             RETURNING debit_account_id, credit_account_id, amount),
           reservation_totals AS (
             UPDATE ledger_accounts a SET debits_committed = a.debits_committed + d.dr, credits_committed = a.credits_committed + d.cr
               FROM (SELECT id, sum(dr) AS dr, sum(cr) AS cr
                       FROM (SELECT debit_account_id AS id, amount AS dr, 0 AS cr FROM reserved
                             UNION ALL SELECT credit_account_id, 0, amount FROM reserved) m GROUP BY id) d, ${WRITING}
              WHERE a.account_id = d.id
             RETURNING a.account_id)`;
}

/** prepareReservations' rows as the jsonb parameter of reservationCtes. */
export const reservationsParameter = (transfers: TransferRow[]) => JSON.stringify(transfers.map((t) => ({
  transfer_id: t.transferId, debit_account_id: t.debitAccountId, credit_account_id: t.creditAccountId,
  amount: t.amount.toString(), currency: t.currency, reason: t.reason, reference: t.reference,
})));

export async function applyTotals(db: Queryable, deltas: Map<string, TotalsDelta>): Promise<void> {
  if (deltas.size === 0) return;
  const result = await db.query({
    name: 'ledger-apply-totals',
    text: `UPDATE ledger_accounts a SET debits_committed = a.debits_committed + d.dr, credits_committed = a.credits_committed + d.cr
     FROM unnest($1::bigint[], $2::numeric[], $3::numeric[]) AS d(id, dr, cr), ${WRITING}
     WHERE a.account_id = d.id`,
    values: totalsColumns(deltas),
  });
  expectRows('account totals', deltas.size, result.rowCount ?? 0);
}

/** The pending transfers of a reference, locked. */
export async function lockPendingTransfers(db: Queryable, reference: string): Promise<TransferRow[]> {
  const { rows } = await db.query<Omit<TransferRow, 'amount'> & { amount: string }>(
    `SELECT transfer_id AS "transferId", debit_account_id AS "debitAccountId", credit_account_id AS "creditAccountId",
            amount::text AS amount, currency, state, two_phase AS "twoPhase", reason, reference
       FROM ledger_transfers WHERE reference = $1 AND state = 'PENDING' ORDER BY transfer_id FOR UPDATE`,
    [reference],
  );
  return rows.map((r) => ({ ...r, amount: BigInt(r.amount) }));
}

/**
 * The no-overdraft accounts that the pending transfers of the references move, share-locked (FOR
 * KEY SHARE) in account order. `references` completes `reference ...`: `= ANY($1::text[])`, or
 * `IN (SELECT ...)` inside a caller's statement.
 */
const postingLocks = (references: string) => `SELECT a.account_id FROM ledger_accounts a
            WHERE a.no_overdraft
              AND a.account_id IN (SELECT debit_account_id FROM ledger_transfers WHERE reference ${references} AND state = 'PENDING'
                                   UNION SELECT credit_account_id FROM ledger_transfers WHERE reference ${references} AND state = 'PENDING')
            ORDER BY a.account_id FOR KEY SHARE OF a`;

const POST_SET = `SET state = 'POSTED', resolved_at = now(), resolved_seq = nextval('ledger_movement_seq')`;

/**
 * Share-locks (FOR KEY SHARE) the no-overdraft accounts that the pending transfers of the
 * references move, before their post takes its movement numbers: a statement reader, which locks
 * the account FOR UPDATE, then waits for the post to commit (migration 0023). Writers' locks
 * (FOR NO KEY UPDATE) do not conflict with it, so posts still never queue on reservations.
 */
export async function lockForPosting(db: Queryable, references: string[]): Promise<void> {
  await db.query({ name: 'ledger-lock-for-posting', text: postingLocks('= ANY($1::text[])'), values: [references] });
}

/**
 * lockForPosting and the post, as two CTEs for a caller that posts inside a statement of its own
 * (one round trip): `posting_locks`, then `posted` (yielding the reference of each transfer
 * posted). The locks are an InitPlan of the post, so they are taken before its first movement
 * number. `references` as in postingLocks; the caller checks that each reference had a
 * reservation to post.
 */
export function postingCtes(references: string): string {
  return `posting_locks AS (${postingLocks(references)}),
     posted AS (UPDATE ledger_transfers ${POST_SET}
                 WHERE reference ${references} AND state = 'PENDING' AND (SELECT count(*) FROM posting_locks) >= 0
                RETURNING reference)`;
}

/**
 * Posts the pending transfers of the references; call lockForPosting first. Every reference must
 * have had a reservation to post (its payout was holding one): one that had none is a bug, thrown.
 */
export async function postPendingOf(db: Queryable, references: string[]): Promise<number> {
  const result = await db.query<{ reference: string }>({
    name: 'ledger-post-pending',
    text: `UPDATE ledger_transfers ${POST_SET} WHERE reference = ANY($1::text[]) AND state = 'PENDING' RETURNING reference`,
    values: [references],
  });
  const posted = new Set(result.rows.map((r) => r.reference));
  const none = references.filter((r) => !posted.has(r));
  if (none.length > 0) throw new LedgerRowCountError(`ledger post: nothing pending for ${none.join(', ')}`);
  return result.rowCount ?? 0;
}

/** Ends reservations (all of them, or it throws); call it while their accounts are locked, so their movement numbers follow the lock. */
export async function resolveTransfers(db: Queryable, transferIds: string[], state: 'POSTED' | 'VOIDED'): Promise<void> {
  const result = await db.query(
    `UPDATE ledger_transfers SET state = $2, resolved_at = now(), resolved_seq = nextval('ledger_movement_seq')
      WHERE transfer_id = ANY($1::uuid[]) AND state = 'PENDING'`,
    [transferIds, state],
  );
  expectRows(`${state === 'POSTED' ? 'post' : 'void'} of pending transfers`, new Set(transferIds).size, result.rowCount ?? 0);
}

export async function findAccountIds(db: Queryable, specs: AccountSpec[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ accountId: string; kind: string; s: string | null; d: string | null; currency: string }>(
    `SELECT a.account_id AS "accountId", a.kind, a.source_member_id AS s, a.destination_member_id AS d, a.currency
       FROM ledger_accounts a
       JOIN unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS w(kind, s, d, currency)
         ON a.kind = w.kind AND a.currency = w.currency
        AND coalesce(a.source_member_id, '') = coalesce(w.s, '') AND coalesce(a.destination_member_id, '') = coalesce(w.d, '')`,
    [specs.map((s) => s.kind), specs.map((s) => s.sourceMemberId), specs.map((s) => s.destinationMemberId), specs.map((s) => s.currency)],
  );
  return new Map(rows.map((r) => [accountKey({ kind: r.kind as AccountSpec['kind'], sourceMemberId: r.s, destinationMemberId: r.d, currency: r.currency }), r.accountId]));
}

export interface BalanceRow { committed: TotalsDelta; pending: TotalsDelta }

/**
 * The accounts' totals and their pending sums in ONE statement, so both are read in one snapshot:
 * read in two, a reservation committing between them would show a balance that never was.
 * Accounts that do not exist are absent.
 */
export async function readBalances(db: Queryable, specs: AccountSpec[]): Promise<Map<string, BalanceRow>> {
  const { rows } = await db.query<{ kind: string; s: string | null; d: string | null; currency: string; dc: string; cc: string; dp: string; cp: string }>(
    `SELECT a.kind, a.source_member_id AS s, a.destination_member_id AS d, a.currency,
            a.debits_committed::text AS dc, a.credits_committed::text AS cc,
            (SELECT coalesce(sum(amount), 0) FROM ledger_transfers WHERE debit_account_id = a.account_id AND state = 'PENDING')::text AS dp,
            (SELECT coalesce(sum(amount), 0) FROM ledger_transfers WHERE credit_account_id = a.account_id AND state = 'PENDING')::text AS cp
       FROM ledger_accounts a
       JOIN unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS w(kind, s, d, currency)
         ON a.kind = w.kind AND a.currency = w.currency
        AND coalesce(a.source_member_id, '') = coalesce(w.s, '') AND coalesce(a.destination_member_id, '') = coalesce(w.d, '')`,
    [specs.map((s) => s.kind), specs.map((s) => s.sourceMemberId), specs.map((s) => s.destinationMemberId), specs.map((s) => s.currency)],
  );
  return new Map(rows.map((r) => [
    accountKey({ kind: r.kind as AccountSpec['kind'], sourceMemberId: r.s, destinationMemberId: r.d, currency: r.currency }),
    { committed: { debits: BigInt(r.dc), credits: BigInt(r.cc) }, pending: { debits: BigInt(r.dp), credits: BigInt(r.cp) } },
  ]));
}

/** Accounts whose running totals differ from the sums of their transfers not voided (should be none). */
export async function totalsMismatches(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ accountId: string }>(
    `WITH sums AS (
       SELECT a.account_id,
         coalesce(sum(t.amount) FILTER (WHERE t.debit_account_id = a.account_id AND t.state <> 'VOIDED'), 0) AS dr,
         coalesce(sum(t.amount) FILTER (WHERE t.credit_account_id = a.account_id AND t.state <> 'VOIDED'), 0) AS cr
       FROM ledger_accounts a
       LEFT JOIN ledger_transfers t ON t.debit_account_id = a.account_id OR t.credit_account_id = a.account_id
       GROUP BY a.account_id)
     SELECT a.account_id AS "accountId" FROM ledger_accounts a JOIN sums s USING (account_id)
      WHERE (a.debits_committed, a.credits_committed) <> (s.dr, s.cr)`,
  );
  return rows.map((r) => r.accountId);
}

/** Currencies whose debits and credits do not balance (should be none). */
export async function unbalancedCurrencies(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ currency: string }>(
    `SELECT currency FROM ledger_accounts GROUP BY currency HAVING sum(debits_committed) <> sum(credits_committed)`,
  );
  return rows.map((r) => r.currency);
}

/** Transfers whose two accounts are in another currency than the transfer (should be none). */
export async function crossCurrencyTransfers(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ transferId: string }>(
    `SELECT t.transfer_id AS "transferId" FROM ledger_transfers t
       JOIN ledger_accounts d ON d.account_id = t.debit_account_id
       JOIN ledger_accounts c ON c.account_id = t.credit_account_id
      WHERE d.currency <> t.currency OR c.currency <> t.currency`,
  );
  return rows.map((r) => r.transferId);
}

export async function danglingTransfers(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ transferId: string }>(
    `SELECT t.transfer_id AS "transferId" FROM ledger_transfers t
      WHERE NOT EXISTS (SELECT 1 FROM ledger_accounts a WHERE a.account_id = t.debit_account_id)
         OR NOT EXISTS (SELECT 1 FROM ledger_accounts a WHERE a.account_id = t.credit_account_id)`,
  );
  return rows.map((r) => r.transferId);
}
