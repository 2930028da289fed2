// What a rail is told of a payout.
import type { PayoutForRail } from './rails/rail.ts';
import type { PayoutRow } from './repo.ts';

export const forRail = (row: PayoutRow): PayoutForRail => ({
  payoutId: row.payoutId,
  payoutProviderId: row.payoutProviderId,
  payoutMethod: row.payoutMethod,
  destinationMemberId: row.destinationMemberId,
  destinationCcy: row.destinationCcy,
  payoutAmt: row.payoutAmt,
  sender: row.sender,
  beneficiary: row.beneficiary,
});
