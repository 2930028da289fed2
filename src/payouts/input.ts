import type { PayoutMethod, Segment } from '../providers/model.ts';

/** The payout creation request after schema validation. */
export interface CreatePayoutInput {
  sender: Record<string, unknown>;
  beneficiary: Record<string, unknown>;
  complianceInfo?: Record<string, unknown>;
  sourceMemberPayoutId: string;
  destinationCcy: string;
  payoutAmt: number;
  payoutProviderId: string;
  payoutMethod?: PayoutMethod;
  segment?: Segment;
}
