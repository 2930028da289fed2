// The reference partner's settlement books, in the same SQLite file as its payouts: every
// settlement notice it received (once per reference, however often it was sent) with the id it
// answered, and the confirmations it owes the service (an outbox: recorded with the notice, sent
// once due until the service answers). A restarted partner still knows its notices.
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { PartnerSettlementNotice } from '../src/partners/settlement-protocol.ts';

export const SETTLEMENT_SCHEMA = `
CREATE TABLE IF NOT EXISTS settlement_notices (
  reference TEXT PRIMARY KEY, settlement_id TEXT NOT NULL, partner_notice_id TEXT NOT NULL UNIQUE, source_member_id TEXT NOT NULL,
  currency TEXT NOT NULL, credit_amount TEXT NOT NULL, tx_hash TEXT, notices INTEGER NOT NULL, received_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS settlement_confirmations (
  reference TEXT PRIMARY KEY, credited_amount TEXT NOT NULL, currency TEXT NOT NULL, partner_credit_id TEXT NOT NULL,
  credited_at TEXT, due_at_ms INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, bad_signature INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'SENT', 'GAVE_UP')), last_error TEXT
);
CREATE INDEX IF NOT EXISTS settlement_confirmations_due ON settlement_confirmations (state, due_at_ms);
`;

export interface NoticeRow {
  reference: string;
  settlementId: string;
  partnerNoticeId: string;
  currency: string;
  creditAmount: string;
  notices: number;
}

export interface ConfirmationRow {
  reference: string;
  creditedAmount: string;
  currency: string;
  partnerCreditId: string;
  creditedAt: string | null;
  dueAtMs: number;
  attempts: number;
  badSignature: number;
}

/** The confirmation a new notice owes: what it credits, when, signed well or not. */
export interface NewConfirmation {
  creditedAmount: string;
  dueAtMs: number;
  badSignature: boolean;
}

const NOTICE_COLUMNS = `reference, settlement_id AS settlementId, partner_notice_id AS partnerNoticeId, currency, credit_amount AS creditAmount, notices`;
const CONFIRMATION_COLUMNS = `reference, credited_amount AS creditedAmount, currency, partner_credit_id AS partnerCreditId, credited_at AS creditedAt,
  due_at_ms AS dueAtMs, attempts, bad_signature AS badSignature`;

export function openSettlementStore(db: DatabaseSync, transaction: <T>(fn: () => T) => T) {
  const find = (reference: string) => db.prepare(`SELECT ${NOTICE_COLUMNS} FROM settlement_notices WHERE reference = ?`).get(reference) as NoticeRow | undefined;

  return {
    find,

    /** A notice: the first records it (and the confirmation `decide` owes, if any); a repeat only counts. */
    receive(notice: PartnerSettlementNotice, decide: () => NewConfirmation | undefined): NoticeRow {
      return transaction(() => {
        const known = find(notice.reference);
        if (known) {
          db.prepare('UPDATE settlement_notices SET notices = notices + 1 WHERE reference = ?').run(notice.reference);
          return { ...known, notices: known.notices + 1 };
        }
        db.prepare(`INSERT INTO settlement_notices (reference, settlement_id, partner_notice_id, source_member_id, currency, credit_amount, tx_hash, notices, received_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)`).run(
          notice.reference, notice.settlementId, `stl-${randomUUID()}`, notice.sourceMemberId, notice.destinationCcy, notice.creditAmount,
          notice.txHash ?? null, new Date().toISOString(),
        );
        const confirmation = decide();
        if (confirmation) {
          db.prepare(`INSERT INTO settlement_confirmations (reference, credited_amount, currency, partner_credit_id, due_at_ms, bad_signature) VALUES (?, ?, ?, ?, ?, ?)`)
            .run(notice.reference, confirmation.creditedAmount, notice.destinationCcy, `cr-${randomUUID()}`, confirmation.dueAtMs, confirmation.badSignature ? 1 : 0);
        }
        return find(notice.reference)!;
      });
    },

    /** Due confirmations, each with its credit time fixed when first taken (a resend repeats it). */
    takeDue(nowMs: number, limit: number): ConfirmationRow[] {
      return transaction(() => {
        const due = db.prepare(`SELECT ${CONFIRMATION_COLUMNS} FROM settlement_confirmations WHERE state = 'PENDING' AND due_at_ms <= ? ORDER BY due_at_ms LIMIT ?`)
          .all(nowMs, limit) as unknown as ConfirmationRow[];
        for (const row of due) {
          if (row.creditedAt !== null) continue;
          row.creditedAt = new Date(nowMs).toISOString();
          db.prepare('UPDATE settlement_confirmations SET credited_at = ? WHERE reference = ?').run(row.creditedAt, row.reference);
        }
        return due;
      });
    },

    markSent(reference: string) {
      db.prepare(`UPDATE settlement_confirmations SET state = 'SENT', attempts = attempts + 1, last_error = NULL WHERE reference = ?`).run(reference);
    },

    markFailed(reference: string, error: string, retryAtMs: number | undefined) {
      db.prepare(`UPDATE settlement_confirmations SET attempts = attempts + 1, last_error = ?, state = ?, due_at_ms = COALESCE(?, due_at_ms) WHERE reference = ?`)
        .run(error, retryAtMs === undefined ? 'GAVE_UP' : 'PENDING', retryAtMs ?? null, reference);
    },

    books() {
      const notices = db.prepare(`SELECT ${NOTICE_COLUMNS}, tx_hash AS txHash FROM settlement_notices ORDER BY received_at`).all();
      const confirmations = db.prepare(`SELECT ${CONFIRMATION_COLUMNS}, state, last_error AS lastError FROM settlement_confirmations ORDER BY rowid`).all();
      return { notices, confirmations };
    },
  };
}
export type SettlementStore = ReturnType<typeof openSettlementStore>;
