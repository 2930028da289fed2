// SQL for the ledger check (npm run admin -- ledger check). Every query reads one page, keyed by
// the id after the last one seen, so the check's memory stays bounded on any ledger size.
import type { Queryable } from '../platform/database/pool.ts';

export interface AccountTotals {
  accountId: string;
  debitsCommitted: string;
  creditsCommitted: string;
  debitsSummed: string;
  creditsSummed: string;
}

/** A page of accounts (account_id above `after`) whose stored totals differ from their transfers' sums, and the page's last id. */
export async function accountTotalsPage(db: Queryable, after: string, pageSizeMax: number): Promise<{ mismatches: AccountTotals[]; read: number; last: string | undefined }> {
  const { rows } = await db.query<AccountTotals & { matches: boolean }>(
    `WITH page AS (SELECT account_id, debits_committed, credits_committed FROM ledger_accounts
                    WHERE account_id > $1::bigint ORDER BY account_id LIMIT $2),
     sums AS (
       SELECT p.account_id,
              (SELECT coalesce(sum(amount), 0) FROM ledger_transfers WHERE debit_account_id = p.account_id AND state <> 'VOIDED') AS dr,
              (SELECT coalesce(sum(amount), 0) FROM ledger_transfers WHERE credit_account_id = p.account_id AND state <> 'VOIDED') AS cr
         FROM page p)
     SELECT p.account_id::text AS "accountId", p.debits_committed::text AS "debitsCommitted", p.credits_committed::text AS "creditsCommitted",
            s.dr::text AS "debitsSummed", s.cr::text AS "creditsSummed",
            (p.debits_committed, p.credits_committed) = (s.dr, s.cr) AS matches
       FROM page p JOIN sums s USING (account_id) ORDER BY p.account_id`,
    [after, pageSizeMax],
  );
  return { mismatches: rows.filter((r) => !r.matches).map(({ matches: _, ...r }) => r), read: rows.length, last: rows.at(-1)?.accountId };
}

export interface CurrencyTotals { currency: string; debits: string; credits: string }

/** Currencies whose debits and credits (stored totals, and transfers not voided) do not balance. One row per currency: small. */
export async function unbalancedCurrencies(db: Queryable): Promise<CurrencyTotals[]> {
  const { rows } = await db.query<CurrencyTotals>(
    `SELECT currency, sum(debits_committed)::text AS debits, sum(credits_committed)::text AS credits
       FROM ledger_accounts GROUP BY currency HAVING sum(debits_committed) <> sum(credits_committed) ORDER BY currency`,
  );
  return rows;
}

/** How a payout's transfers stand: counts per leg kind and state. */
export interface PayoutLegs {
  payoutId: string;
  payoutStatus: string;
  reservations: number;
  reservationsPending: number;
  reservationsPosted: number;
  reservationsVoided: number;
  charges: number;
  reversals: number;
  others: number;
}

export async function payoutLegsPage(db: Queryable, after: string | null, pageSizeMax: number): Promise<PayoutLegs[]> {
  const { rows } = await db.query<PayoutLegs>(
    `WITH page AS (SELECT payout_id, payout_status FROM payouts WHERE $1::uuid IS NULL OR payout_id > $1::uuid ORDER BY payout_id LIMIT $2)
     SELECT p.payout_id::text AS "payoutId", p.payout_status AS "payoutStatus",
            count(*) FILTER (WHERE t.reason IN ('PAYOUT', 'PAYOUT_FEE'))::int AS reservations,
            count(*) FILTER (WHERE t.reason IN ('PAYOUT', 'PAYOUT_FEE') AND t.state = 'PENDING')::int AS "reservationsPending",
            count(*) FILTER (WHERE t.reason IN ('PAYOUT', 'PAYOUT_FEE') AND t.state = 'POSTED')::int AS "reservationsPosted",
            count(*) FILTER (WHERE t.reason IN ('PAYOUT', 'PAYOUT_FEE') AND t.state = 'VOIDED')::int AS "reservationsVoided",
            count(*) FILTER (WHERE t.reason IN ('PAYOUT_LATE_CHARGE', 'PAYOUT_FEE_LATE_CHARGE') AND t.state = 'POSTED')::int AS charges,
            count(*) FILTER (WHERE t.reason IN ('PAYOUT_REVERSAL', 'PAYOUT_FEE_REVERSAL') AND t.state = 'POSTED')::int AS reversals,
            count(*) FILTER (WHERE t.reason IS NOT NULL AND t.reason NOT IN ('PAYOUT', 'PAYOUT_FEE', 'PAYOUT_LATE_CHARGE', 'PAYOUT_FEE_LATE_CHARGE', 'PAYOUT_REVERSAL', 'PAYOUT_FEE_REVERSAL')
                                OR t.reason IN ('PAYOUT_LATE_CHARGE', 'PAYOUT_FEE_LATE_CHARGE', 'PAYOUT_REVERSAL', 'PAYOUT_FEE_REVERSAL') AND t.state <> 'POSTED')::int AS others
       FROM page p LEFT JOIN ledger_transfers t ON t.reference = p.payout_id::text
      GROUP BY p.payout_id, p.payout_status ORDER BY p.payout_id`,
    [after, pageSizeMax],
  );
  return rows;
}

/** How a settlement's transfers stand: posted transfers per leg. */
export interface SettlementLegs {
  settlementId: string;
  settlementStatus: string;
  /** settlement_amt_received > 0 (a completed settlement that received nothing credits nothing). */
  received: boolean;
  ins: number;
  buys: number;
  sents: number;
  delivereds: number;
  outs: number;
  refunds: number;
  unwinds: number;
  others: number;
}

/** The legs a settlement posts (settlements/apply.ts). */
const SETTLEMENT_LEGS = ['SETTLEMENT_IN', 'SETTLEMENT_BUY', 'SETTLEMENT_SENT', 'SETTLEMENT_DELIVERED', 'SETTLEMENT_OUT', 'SETTLEMENT_REFUND', 'SETTLEMENT_UNWIND'];

export async function settlementLegsPage(db: Queryable, after: string | null, pageSizeMax: number): Promise<SettlementLegs[]> {
  const { rows } = await db.query<SettlementLegs>(
    `WITH page AS (SELECT settlement_id, settlement_status, coalesce(settlement_amt_received, 0) > 0 AS received FROM settlements
                    WHERE $1::uuid IS NULL OR settlement_id > $1::uuid ORDER BY settlement_id LIMIT $2)
     SELECT p.settlement_id::text AS "settlementId", p.settlement_status AS "settlementStatus", p.received,
            count(*) FILTER (WHERE t.reason = 'SETTLEMENT_IN' AND t.state = 'POSTED')::int AS ins,
            count(*) FILTER (WHERE t.reason = 'SETTLEMENT_BUY' AND t.state = 'POSTED')::int AS buys,
            count(*) FILTER (WHERE t.reason = 'SETTLEMENT_SENT' AND t.state = 'POSTED')::int AS sents,
            count(*) FILTER (WHERE t.reason = 'SETTLEMENT_DELIVERED' AND t.state = 'POSTED')::int AS delivereds,
            count(*) FILTER (WHERE t.reason = 'SETTLEMENT_OUT' AND t.state = 'POSTED')::int AS outs,
            count(*) FILTER (WHERE t.reason = 'SETTLEMENT_REFUND' AND t.state = 'POSTED')::int AS refunds,
            count(*) FILTER (WHERE t.reason = 'SETTLEMENT_UNWIND' AND t.state = 'POSTED')::int AS unwinds,
            count(*) FILTER (WHERE t.reason IS NOT NULL AND (t.state <> 'POSTED' OR t.reason <> ALL ($3::text[])))::int AS others
       FROM page p LEFT JOIN ledger_transfers t ON t.reference = p.settlement_id::text
      GROUP BY p.settlement_id, p.settlement_status, p.received ORDER BY p.settlement_id`,
    [after, pageSizeMax, SETTLEMENT_LEGS],
  );
  return rows;
}

export interface DanglingTransfer { transferId: string; reason: string; reference: string; why: string }

/**
 * A page of transfers (transfer_id above `after`) and, for those that refer to nothing, why: an
 * account that does not exist, or a reference that names no payout, settlement or operator movement.
 */
export async function danglingPage(db: Queryable, after: string | null, pageSizeMax: number): Promise<{ dangling: DanglingTransfer[]; read: number; last: string | undefined }> {
  const { rows } = await db.query<DanglingTransfer & { why: string | null }>(
    `WITH page AS (SELECT transfer_id, debit_account_id, credit_account_id, currency, reason, reference FROM ledger_transfers
                    WHERE $1::uuid IS NULL OR transfer_id > $1::uuid ORDER BY transfer_id LIMIT $2)
     SELECT t.transfer_id::text AS "transferId", t.reason, t.reference,
            CASE
              WHEN d.account_id IS NULL THEN 'debit account does not exist'
              WHEN c.account_id IS NULL THEN 'credit account does not exist'
              WHEN d.currency <> t.currency OR c.currency <> t.currency THEN 'accounts in another currency'
              WHEN t.reason LIKE 'PAYOUT%' THEN
                CASE WHEN EXISTS (SELECT 1 FROM payouts p WHERE p.payout_id::text = t.reference) THEN NULL ELSE 'no payout has this reference' END
              WHEN t.reason LIKE 'SETTLEMENT%' THEN
                CASE WHEN EXISTS (SELECT 1 FROM settlements s WHERE s.settlement_id::text = t.reference) THEN NULL ELSE 'no settlement has this reference' END
              WHEN t.reason LIKE 'OPERATOR_PREFUND%' THEN
                CASE WHEN EXISTS (SELECT 1 FROM operator_prefund_movements m WHERE m.transfer_id = t.transfer_id) THEN NULL ELSE 'no operator movement has this transfer' END
              WHEN t.reason LIKE 'SANDBOX%' THEN NULL
              ELSE 'unknown reason'
            END AS why
       FROM page t
       LEFT JOIN ledger_accounts d ON d.account_id = t.debit_account_id
       LEFT JOIN ledger_accounts c ON c.account_id = t.credit_account_id
      ORDER BY t.transfer_id`,
    [after, pageSizeMax],
  );
  return { dangling: rows.filter((r) => r.why !== null) as DanglingTransfer[], read: rows.length, last: rows.at(-1)?.transferId };
}
