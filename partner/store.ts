// The reference partner's books, in its own SQLite file (node:sqlite): every payout it received
// (once per payoutId, however often it was submitted), its status, and the reports it owes the
// service (an outbox: a report is recorded with the change that causes it, then sent until the
// service answers). Every write is one synchronous statement or transaction: nothing interleaves.
import { DatabaseSync } from 'node:sqlite';
import type { PartnerPayoutRequest, PartnerPayoutStatus, ReportStatus } from '../src/partners/protocol.ts';
import { openSettlementStore, SETTLEMENT_SCHEMA } from './settlement-store.ts';

export interface PayoutRow {
  payoutId: string;
  payoutMethod: string;
  currency: string | null;
  amount: string | null;
  status: PartnerPayoutStatus;
  reason: string | null;
  cashoutStatus: string | null;
  submissions: number;
}

export interface ReportRow {
  reportId: string;
  payoutId: string;
  status: ReportStatus;
  sequence: number;
  occurredAt: string;
  rejectReason: string | null;
  cashoutStatus: string | null;
  /** The payout's status at the partner once this report is due (null: unchanged). */
  becomes: PartnerPayoutStatus | null;
  /** The status the payout must still have when due, else the report is dropped (null: any). */
  requires: PartnerPayoutStatus | null;
  dueAtMs: number;
  attempts: number;
  duplicate: number;
  badSignature: number;
}

/** What the partner decides for a payout it receives for the first time. */
export interface Decision {
  status: PartnerPayoutStatus;
  reason?: string;
  cashoutStatus?: string;
  reports: NewReport[];
}

export interface NewReport {
  status: ReportStatus;
  dueAtMs: number;
  becomes?: PartnerPayoutStatus;
  requires?: PartnerPayoutStatus;
  rejectReason?: string;
  cashoutStatus?: string;
  duplicate?: boolean;
  badSignature?: boolean;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS payouts (
  payout_id TEXT PRIMARY KEY, payout_method TEXT NOT NULL, currency TEXT, amount TEXT,
  status TEXT NOT NULL, reason TEXT, cashout_status TEXT, submissions INTEGER NOT NULL,
  report_sequence INTEGER NOT NULL DEFAULT 0, received_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS reports (
  report_id TEXT PRIMARY KEY, payout_id TEXT NOT NULL, status TEXT NOT NULL, sequence INTEGER NOT NULL,
  occurred_at TEXT, reject_reason TEXT, cashout_status TEXT, becomes TEXT, requires TEXT,
  due_at_ms INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, duplicate INTEGER NOT NULL DEFAULT 0,
  bad_signature INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'SENT', 'GAVE_UP', 'DROPPED')), last_error TEXT
);
CREATE INDEX IF NOT EXISTS reports_due ON reports (state, due_at_ms);
`;

const PAYOUT_COLUMNS = `payout_id AS payoutId, payout_method AS payoutMethod, currency, amount, status, reason,
  cashout_status AS cashoutStatus, submissions`;
const REPORT_COLUMNS = `report_id AS reportId, payout_id AS payoutId, status, sequence, occurred_at AS occurredAt,
  reject_reason AS rejectReason, cashout_status AS cashoutStatus, becomes, requires, due_at_ms AS dueAtMs, attempts,
  duplicate, bad_signature AS badSignature`;

export function openStore(file: string) {
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
  db.exec(SCHEMA);
  db.exec(SETTLEMENT_SCHEMA);
  const transaction = <T>(fn: () => T): T => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn();
      db.exec('COMMIT');
      return result;
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  };
  // the statements of the submission path, prepared once
  const findStatement = db.prepare(`SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE payout_id = ?`);
  const countSubmission = db.prepare('UPDATE payouts SET submissions = submissions + 1 WHERE payout_id = ?');
  const insertPayout = db.prepare(`INSERT INTO payouts (payout_id, payout_method, currency, amount, status, reason, cashout_status, submissions, received_at)
                                   VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)`);
  const find = (payoutId: string) => findStatement.get(payoutId) as PayoutRow | undefined;

  function addReports(payoutId: string, reports: NewReport[]): void {
    for (const report of reports) {
      const { sequence } = db.prepare('UPDATE payouts SET report_sequence = report_sequence + 1 WHERE payout_id = ? RETURNING report_sequence AS sequence').get(payoutId) as { sequence: number };
      db.prepare(`INSERT INTO reports (report_id, payout_id, status, sequence, reject_reason, cashout_status, becomes, requires, due_at_ms, duplicate, bad_signature)
                  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
        `${payoutId}:${sequence}`, payoutId, report.status, sequence, report.rejectReason ?? null, report.cashoutStatus ?? null,
        report.becomes ?? null, report.requires ?? null, report.dueAtMs, report.duplicate ? 1 : 0, report.badSignature ? 1 : 0,
      );
    }
  }

  function receiveOne(request: PartnerPayoutRequest, decide: (request: PartnerPayoutRequest) => Decision): PayoutRow {
    const known = find(request.payoutId);
    if (known) {
      countSubmission.run(request.payoutId);
      return { ...known, submissions: known.submissions + 1 };
    }
    const decision = decide(request);
    insertPayout.run(
      request.payoutId, request.payoutMethod, request.destinationCcy, request.payoutAmt, decision.status,
      decision.reason ?? null, decision.cashoutStatus ?? null, new Date().toISOString(),
    );
    addReports(request.payoutId, decision.reports);
    return {
      payoutId: request.payoutId, payoutMethod: request.payoutMethod, currency: request.destinationCcy, amount: request.payoutAmt,
      status: decision.status, reason: decision.reason ?? null, cashoutStatus: decision.cashoutStatus ?? null, submissions: 1,
    };
  }

  const settlements = openSettlementStore(db, transaction);

  return {
    find,
    settlements,

    /** A submission: the first records the payout with `decide`'s answer; a repeat only counts. */
    receive(request: PartnerPayoutRequest, decide: (request: PartnerPayoutRequest) => Decision): PayoutRow {
      return transaction(() => receiveOne(request, decide));
    },

    /** Several submissions in one transaction (one write to disk), each as `receive` would take it. */
    receiveMany(requests: PartnerPayoutRequest[], decide: (request: PartnerPayoutRequest) => Decision): PayoutRow[] {
      return transaction(() => requests.map((request) => receiveOne(request, decide)));
    },

    /** Cancel: blocks an id never received, withdraws a PENDING one; answers the row as it stands after. */
    cancel(payoutId: string): { before: PayoutRow | undefined; after: PayoutRow } {
      return transaction(() => {
        const before = find(payoutId);
        if (!before) {
          db.prepare(`INSERT INTO payouts (payout_id, payout_method, status, submissions, received_at) VALUES (?, '-', 'CANCELLED', 0, ?)`).run(payoutId, new Date().toISOString());
        } else if (before.status === 'PENDING') {
          db.prepare(`UPDATE payouts SET status = 'CANCELLED' WHERE payout_id = ?`).run(payoutId);
        }
        return { before, after: find(payoutId)! };
      });
    },

    /** Cash handed over at the counter: PENDING becomes PAID and a CASH_PICKED_UP report is owed. */
    pickUp(payoutId: string, report: Omit<NewReport, 'status' | 'dueAtMs'>): PayoutRow | undefined {
      return transaction(() => {
        const row = find(payoutId);
        if (row?.status !== 'PENDING') return undefined;
        db.prepare(`UPDATE payouts SET status = 'PAID', cashout_status = 'PAID' WHERE payout_id = ?`).run(payoutId);
        addReports(payoutId, [{ ...report, status: 'CASH_PICKED_UP', dueAtMs: Date.now() }]);
        return find(payoutId);
      });
    },

    /** Due reports; a report whose payout moved on (cancelled meanwhile) is dropped, others make their change. */
    takeDue(nowMs: number, limit: number): ReportRow[] {
      return transaction(() => {
        const due = db.prepare(`SELECT ${REPORT_COLUMNS} FROM reports WHERE state = 'PENDING' AND due_at_ms <= ? ORDER BY due_at_ms, sequence LIMIT ?`).all(nowMs, limit) as unknown as ReportRow[];
        const out: ReportRow[] = [];
        for (const report of due) {
          if (report.occurredAt === null) {
            const payout = find(report.payoutId)!;
            if (report.requires !== null && payout.status !== report.requires) {
              db.prepare(`UPDATE reports SET state = 'DROPPED' WHERE report_id = ?`).run(report.reportId);
              continue;
            }
            if (report.becomes !== null) {
              db.prepare('UPDATE payouts SET status = ?, reason = COALESCE(?, reason), cashout_status = COALESCE(?, cashout_status) WHERE payout_id = ?')
                .run(report.becomes, report.rejectReason, report.cashoutStatus, report.payoutId);
            }
            report.occurredAt = new Date(nowMs).toISOString();
            db.prepare('UPDATE reports SET occurred_at = ? WHERE report_id = ?').run(report.occurredAt, report.reportId);
          }
          out.push(report);
        }
        return out;
      });
    },

    markSent(reportId: string) {
      db.prepare(`UPDATE reports SET state = 'SENT', attempts = attempts + 1, last_error = NULL WHERE report_id = ?`).run(reportId);
    },

    markFailed(reportId: string, error: string, retryAtMs: number | undefined) {
      db.prepare(`UPDATE reports SET attempts = attempts + 1, last_error = ?, state = ?, due_at_ms = COALESCE(?, due_at_ms) WHERE report_id = ?`)
        .run(error, retryAtMs === undefined ? 'GAVE_UP' : 'PENDING', retryAtMs ?? null, reportId);
    },

    /** The books: every payout, what was paid per currency, and the reports by state. */
    books() {
      const payouts = db.prepare(`SELECT ${PAYOUT_COLUMNS} FROM payouts ORDER BY received_at`).all() as unknown as PayoutRow[];
      const reports = db.prepare(`SELECT report_id AS reportId, payout_id AS payoutId, status, sequence, state, attempts, last_error AS lastError FROM reports ORDER BY rowid`).all();
      const paid: Record<string, string> = {};
      for (const p of payouts) if (p.status === 'PAID' && p.currency && p.amount) paid[p.currency] = addDecimal(paid[p.currency] ?? '0', p.amount);
      return { payouts, paidByCurrency: paid, reports, settlements: settlements.books() };
    },

    close: () => db.close(),
  };
}
export type Store = ReturnType<typeof openStore>;

/** Exact sum of two decimal texts (at most 4 decimals, as the protocol sends them). */
export function addDecimal(a: string, b: string): string {
  const scaled = (text: string) => {
    const [whole, fraction = ''] = text.split('.');
    return BigInt(whole! + fraction.padEnd(4, '0'));
  };
  const sum = (scaled(a) + scaled(b)).toString().padStart(5, '0');
  return `${sum.slice(0, -4)}.${sum.slice(-4)}`.replace(/\.?0+$/, '');
}
