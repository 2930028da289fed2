// What a settlement looks like on the wire (the description's settlement record, with
// executionInterval and rateId as extensions).
import type { SettlementRow } from './repo.ts';

export function settlementRecord(row: SettlementRow) {
  return {
    settlementId: row.settlementId,
    settlementStatus: row.settlementStatus,
    settlementAmt: Number(row.settlementAmt),
    pendingAmt: Number(row.pendingAmt),
    rate: Number(row.rate),
    settlementAmtReceived: row.settlementAmtReceived === null ? null : Number(row.settlementAmtReceived),
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
