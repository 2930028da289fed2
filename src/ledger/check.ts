// The ledger checked against itself and against what it serves (npm run admin -- ledger check):
// account totals recomputed from their transfers, every currency balanced, every payout's and
// settlement's transfers as its status requires, and no transfer referring to nothing. Read page
// by page (PAGE_SIZE_MAX rows a query), so memory stays bounded however large the ledger.
import type { Queryable } from '../platform/database/pool.ts';
import * as repo from './check-repo.ts';

const PAGE_SIZE_MAX = 1000;
/** The differences kept per kind (the counts go on): a broken ledger must not exhaust memory. */
export const DIFFERENCES_KEPT_MAX = 1000;

export interface Difference { id: string; detail: string }
export interface DifferenceList { count: number; items: Difference[] }

export interface LedgerReport {
  checked: { accounts: number; payouts: number; settlements: number; transfers: number };
  accountTotals: DifferenceList;
  unbalancedCurrencies: DifferenceList;
  payouts: DifferenceList;
  settlements: DifferenceList;
  danglingTransfers: DifferenceList;
}

const list = (): DifferenceList => ({ count: 0, items: [] });
function note(into: DifferenceList, difference: Difference): void {
  into.count += 1;
  if (into.items.length < DIFFERENCES_KEPT_MAX) into.items.push(difference);
}

export const differenceCount = (r: LedgerReport) =>
  r.accountTotals.count + r.unbalancedCurrencies.count + r.payouts.count + r.settlements.count + r.danglingTransfers.count;

type Reservation = 'NONE' | 'PENDING' | 'POSTED' | 'VOIDED' | 'MIXED';
function reservationOf(l: repo.PayoutLegs): Reservation {
  if (l.reservations === 0) return 'NONE';
  if (l.reservationsPending === l.reservations) return 'PENDING';
  if (l.reservationsPosted === l.reservations) return 'POSTED';
  if (l.reservationsVoided === l.reservations) return 'VOIDED';
  return 'MIXED';
}

/**
 * What each payout status requires of its transfers: the reservation's state, and how many late
 * charges and reversals (per reservation leg: 0 none, 1 one each). A payout found paid by review
 * after its reservation was voided is PRCD with the reservation VOIDED plus a posted late charge
 * (payouts/apply.ts, CHARGE); a returned one adds the reversal (REVERSE).
 */
const PAYOUT_LEDGER: Record<string, Array<{ reservation: Reservation; charges: 0 | 1; reversals: 0 | 1 }>> = {
  RCVD: [{ reservation: 'NONE', charges: 0, reversals: 0 }, { reservation: 'PENDING', charges: 0, reversals: 0 }],
  ACCP: [{ reservation: 'PENDING', charges: 0, reversals: 0 }],
  PNDG: [{ reservation: 'PENDING', charges: 0, reversals: 0 }],
  PRCD: [{ reservation: 'POSTED', charges: 0, reversals: 0 }, { reservation: 'VOIDED', charges: 1, reversals: 0 }],
  RJCT: [{ reservation: 'VOIDED', charges: 0, reversals: 0 }],
  FAIL: [{ reservation: 'VOIDED', charges: 0, reversals: 0 }],
  CNCL: [{ reservation: 'VOIDED', charges: 0, reversals: 0 }],
  EXPD: [{ reservation: 'VOIDED', charges: 0, reversals: 0 }],
  RVSD: [{ reservation: 'POSTED', charges: 0, reversals: 1 }, { reservation: 'VOIDED', charges: 1, reversals: 1 }],
};

export function payoutDifference(l: repo.PayoutLegs): string | undefined {
  const reservation = reservationOf(l);
  const per = (n: number) => (l.reservations === 0 ? (n === 0 ? 0 : -1) : n === 0 ? 0 : n === l.reservations ? 1 : -1);
  const fits = (PAYOUT_LEDGER[l.payoutStatus] ?? []).some((e) => e.reservation === reservation && e.charges === per(l.charges) && e.reversals === per(l.reversals));
  if (fits && l.others === 0) return undefined;
  return `status ${l.payoutStatus} but reservation ${reservation} (${l.reservations} legs), ${l.charges} late charges, ${l.reversals} reversals, ${l.others} other transfers`;
}

/**
 * What each settlement status requires of its transfers (settlements/apply.ts): the stablecoin's
 * way leg by leg (bought, sent, delivered), the payout to the prefund once completed, and a failed
 * one's funds returned and its undelivered stablecoin unwound. Every completed settlement has all its legs.
 */
export function settlementDifference(l: repo.SettlementLegs): string | undefined {
  const bought = l.ins === 1 && l.buys === 1;
  const onItsWay = l.sents >= l.delivereds && l.sents <= 1 && l.outs === 0 && l.refunds === 0 && l.unwinds === 0;
  let fits: boolean;
  switch (l.settlementStatus) {
    case 'S600_COMPLETED':
      fits = bought && l.sents === 1 && l.delivereds === 1 && l.outs === (l.received ? 1 : 0) && l.refunds === 0 && l.unwinds === 0; break;
    case 'S700_FAILED':
      fits = l.outs === 0 && l.ins <= 1 && l.buys === l.ins && l.refunds === l.ins && l.sents <= l.buys && l.delivereds <= l.sents
        && l.unwinds === l.buys - l.delivereds; break;
    case 'S300_IN_PROGRESS': fits = bought && onItsWay; break;
    case 'S400_FIAT_WITHDRAWAL_IN_PROGRESS': fits = bought && l.sents === 1 && l.delivereds === 1 && onItsWay; break;
    default: fits = l.ins + l.buys + l.sents + l.delivereds + l.outs + l.refunds + l.unwinds === 0;
  }
  if (fits && l.others === 0) return undefined;
  return `status ${l.settlementStatus} but ${l.ins} SETTLEMENT_IN, ${l.buys} SETTLEMENT_BUY, ${l.sents} SETTLEMENT_SENT, `
    + `${l.delivereds} SETTLEMENT_DELIVERED, ${l.outs} SETTLEMENT_OUT, ${l.refunds} SETTLEMENT_REFUND, ${l.unwinds} SETTLEMENT_UNWIND, ${l.others} other transfers`;
}

/** Pages through rows keyed by a text id; `read` answers a page and its last id (undefined at the end). */
async function eachPage(read: (after: string | null) => Promise<string | undefined>): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const last = await read(after);
    if (last === undefined) return;
    after = last;
  }
}

export async function checkLedgerFully(db: Queryable): Promise<LedgerReport> {
  const report: LedgerReport = {
    checked: { accounts: 0, payouts: 0, settlements: 0, transfers: 0 },
    accountTotals: list(), unbalancedCurrencies: list(), payouts: list(), settlements: list(), danglingTransfers: list(),
  };
  let accountAfter = '0';
  for (;;) {
    const page = await repo.accountTotalsPage(db, accountAfter, PAGE_SIZE_MAX);
    if (page.last === undefined) break;
    report.checked.accounts += page.read;
    for (const m of page.mismatches) {
      note(report.accountTotals, { id: m.accountId, detail: `stored debits ${m.debitsCommitted} credits ${m.creditsCommitted}, transfers say debits ${m.debitsSummed} credits ${m.creditsSummed}` });
    }
    accountAfter = page.last;
  }
  for (const c of await repo.unbalancedCurrencies(db)) note(report.unbalancedCurrencies, { id: c.currency, detail: `debits ${c.debits} <> credits ${c.credits}` });
  await eachPage(async (after) => {
    const rows = await repo.payoutLegsPage(db, after, PAGE_SIZE_MAX);
    report.checked.payouts += rows.length;
    for (const l of rows) {
      const detail = payoutDifference(l);
      if (detail) note(report.payouts, { id: l.payoutId, detail });
    }
    return rows.at(-1)?.payoutId;
  });
  await eachPage(async (after) => {
    const rows = await repo.settlementLegsPage(db, after, PAGE_SIZE_MAX);
    report.checked.settlements += rows.length;
    for (const l of rows) {
      const detail = settlementDifference(l);
      if (detail) note(report.settlements, { id: l.settlementId, detail });
    }
    return rows.at(-1)?.settlementId;
  });
  await eachPage(async (after) => {
    const page = await repo.danglingPage(db, after, PAGE_SIZE_MAX);
    report.checked.transfers += page.read;
    for (const d of page.dangling) note(report.danglingTransfers, { id: d.transferId, detail: `${d.reason} ${d.reference}: ${d.why}` });
    return page.last;
  });
  return report;
}
