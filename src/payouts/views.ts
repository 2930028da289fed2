// Payout rows as the API shows them. Optional fields are left out until they have a value.
import type { PayoutRow } from './repo.ts';

const iso = (d: Date | null) => (d === null ? undefined : d.toISOString());

/** T with its null-able fields made optional and never null: what compact leaves. */
type Compact<T> = { [K in keyof T as null extends T[K] ? never : K]: T[K] } & { [K in keyof T as null extends T[K] ? K : never]?: Exclude<T[K], null> };

function compact<T extends Record<string, unknown>>(record: T): Compact<T> {
  for (const key of Object.keys(record)) if (record[key] === undefined || record[key] === null) delete record[key];
  return record as Compact<T>; // the loop above removed every null
}

export function links(payoutId: string) {
  const details = `/v2/payouts/${payoutId}`;
  return { process: `${details}/process`, status: `${details}/status`, details };
}

export function payoutRecord(row: PayoutRow) {
  return compact({
    payoutId: row.payoutId,
    sourceMemberPayoutId: row.sourceMemberPayoutId,
    payoutStatus: row.payoutStatus,
    payoutCancellationStatus: row.cancellationStatus,
    cashoutStatus: row.cashoutStatus,
    rejectReason: row.rejectReason,
    destinationCcy: row.destinationCcy,
    payoutAmt: Number(row.payoutAmt),
    transferFee: Number(row.transferFee),
    expiryTime: row.expiryTime.toISOString(),
    payoutProviderId: row.payoutProviderId,
    segment: row.segment,
    payoutMethod: row.payoutMethod,
    sender: row.sender,
    beneficiary: row.beneficiary,
    complianceInfo: row.complianceInfo,
    creationTime: row.creationTime.toISOString(),
    initiateTime: iso(row.initiateTime),
    completionTime: iso(row.completionTime),
    rejectionTime: iso(row.rejectionTime),
    cancellationTime: iso(row.cancellationTime),
  });
}

export type PayoutStatusView = ReturnType<typeof statusView>;

export function statusView(row: Pick<PayoutRow, 'payoutStatus' | 'cancellationStatus' | 'cashoutStatus' | 'rejectReason'>) {
  return compact({
    payoutStatus: row.payoutStatus,
    payoutCancellationStatus: row.cancellationStatus,
    cashoutStatus: row.cashoutStatus,
    rejectReason: row.rejectReason,
  });
}

export function processView(row: PayoutRow) {
  return compact({ payoutStatus: row.payoutStatus, cashoutStatus: row.cashoutStatus, rejectReason: row.rejectReason });
}
