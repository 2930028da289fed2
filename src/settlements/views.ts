// What a settlement looks like on the wire (the description's settlement record, with
// executionInterval and rateId as extensions).
import { decimalToJsonNumber } from '../platform/money.ts';
import type { SettlementRow } from './repo.ts';

export function settlementRecord(row: SettlementRow) {
  return {
    settlementId: row.settlementId,
    settlementStatus: row.settlementStatus,
    settlementAmt: decimalToJsonNumber(row.settlementAmt),
    pendingAmt: decimalToJsonNumber(row.pendingAmt),
    rate: decimalToJsonNumber(row.rate),
    settlementAmtReceived: row.settlementAmtReceived === null ? null : decimalToJsonNumber(row.settlementAmtReceived),
    sourceCcy: row.sourceCcy,
    destinationCcy: row.destinationCcy,
    sourceMemberId: row.sourceMemberId,
    destinationMemberId: row.destinationMemberId,
    notes: row.notes,
    creationTime: row.creationTime.toISOString(),
    completionTime: row.completionTime?.toISOString() ?? null,
    dueDate: row.dueDate.toISOString(),
    executionInterval: row.executionInterval,
    rateId: row.rateId,
  };
}

export type SettlementRecord = ReturnType<typeof settlementRecord>;

/** The status-changed event's data: the record and the status it left. */
export const statusEventData = (row: SettlementRow, previousStatus: string | null) => ({ ...settlementRecord(row), previousStatus });
