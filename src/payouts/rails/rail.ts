// A payout rail: how the service talks to the partner that pays the beneficiary. Submissions
// carry the payout id, and a rail must answer a repeated submission of the same id as it
// answered the first, without paying twice. Partner reports (a pending payout paid, rejected,
// failed or returned) come back through applyPartnerReport (payouts/partner-report.ts).
import type { PayoutMethod } from '../../providers/model.ts';

export interface PayoutForRail {
  payoutId: string;
  payoutProviderId: string;
  payoutMethod: PayoutMethod;
  destinationCcy: string;
  /** Exact decimal text. */
  payoutAmt: string;
  sender: Record<string, unknown>;
  beneficiary: Record<string, unknown>;
}

export type SubmitOutcome =
  | { outcome: 'CONFIRMED'; cashoutStatus?: string }
  | { outcome: 'PENDING'; cashoutStatus?: string }
  | { outcome: 'REJECTED'; reason: string };

export type CancelOutcome = { outcome: 'CANCELLED' } | { outcome: 'ALREADY_PAID' };

export interface PayoutRail {
  submit(payout: PayoutForRail, signal: AbortSignal): Promise<SubmitOutcome>;
  cancel(payout: PayoutForRail, signal: AbortSignal): Promise<CancelOutcome>;
}

/** Picks the rail for a payout (by provider and method); undefined when none is connected. */
export interface RailRegistry {
  railFor(payout: PayoutForRail): PayoutRail | undefined;
}

/** Production until real partners are connected: no rail, so nothing is ever sent anywhere. */
export const NO_RAILS: RailRegistry = { railFor: () => undefined };

export class NoRailError extends Error {
  override name = 'NoRailError';
}

export function requireRail(registry: RailRegistry, payout: PayoutForRail): PayoutRail {
  const rail = registry.railFor(payout);
  if (!rail) throw new NoRailError(`no rail is connected for ${payout.payoutProviderId}`);
  return rail;
}
