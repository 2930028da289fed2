// A payout rail: how the service talks to the partner that pays the beneficiary. Every call names
// the payout by its id, and a partner must keep these promises (docs/partner-guide.md):
// - submit is idempotent: a repeated submission of the same id is answered as the first was,
//   and pays nothing twice;
// - status answers what the partner knows of an id, NOT_FOUND when it never received it;
// - cancel of an id the partner never received records the id as cancelled, so a submission of
//   it arriving later (a retry, a request delayed in the network) is refused, never paid;
//   cancel of a paid payout answers ALREADY_PAID.
// A call that does not come back with one of these answers (a timeout, a dropped connection, a
// 5xx, a body that does not parse) throws: its outcome is unknown, and the caller treats the
// payout as in doubt (it asks `status` before it resends, cancels or releases any money).
// Partner reports (a pending payout paid, rejected, failed or returned) come back through
// applyPartnerReport (payouts/partner-report.ts).
import type { PayoutMethod } from '../../providers/model.ts';

export interface PayoutForRail {
  payoutId: string;
  payoutProviderId: string;
  payoutMethod: PayoutMethod;
  destinationMemberId: string;
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

/** What a partner knows of a payout id. */
export type PartnerStatus =
  | { status: 'NOT_FOUND' } // never received (and never cancelled)
  | { status: 'PENDING'; cashoutStatus?: string }
  | { status: 'PAID'; cashoutStatus?: string }
  | { status: 'REJECTED'; reason: string }
  | { status: 'FAILED'; reason: string }
  | { status: 'RETURNED'; reason?: string }
  | { status: 'CANCELLED' }; // cancelled: not paid, and never will be

/** What a partner knows of a payout it holds (every status but NOT_FOUND). */
export type KnownStatus = Exclude<PartnerStatus, { status: 'NOT_FOUND' }>;

/** A clear submit answer in the partner-status vocabulary. */
export function statusOfSubmit(outcome: SubmitOutcome): KnownStatus {
  if (outcome.outcome === 'CONFIRMED') return { status: 'PAID', ...(outcome.cashoutStatus ? { cashoutStatus: outcome.cashoutStatus } : {}) };
  if (outcome.outcome === 'PENDING') return { status: 'PENDING', ...(outcome.cashoutStatus ? { cashoutStatus: outcome.cashoutStatus } : {}) };
  return { status: 'REJECTED', reason: outcome.reason };
}

export type CancelOutcome =
  | { outcome: 'CANCELLED' } // withdrawn, or blocked before it arrived: it will never be paid
  | { outcome: 'ALREADY_PAID'; cashoutStatus?: string }
  | { outcome: 'ALREADY_FINAL'; status: 'REJECTED' | 'FAILED' | 'RETURNED'; reason?: string };

/** A clear cancel answer in the partner-status vocabulary (already paid: cashout PAID unless the partner says otherwise). */
export function statusOfCancel(outcome: CancelOutcome): KnownStatus {
  if (outcome.outcome === 'CANCELLED') return { status: 'CANCELLED' };
  if (outcome.outcome === 'ALREADY_PAID') return { status: 'PAID', cashoutStatus: outcome.cashoutStatus ?? 'PAID' };
  if (outcome.status === 'RETURNED') return { status: 'RETURNED' };
  return { status: outcome.status, reason: outcome.reason ?? `${outcome.status} at the partner` };
}

export interface PayoutRail {
  submit(payout: PayoutForRail, signal: AbortSignal): Promise<SubmitOutcome>;
  status(payout: PayoutForRail, signal: AbortSignal): Promise<PartnerStatus>;
  cancel(payout: PayoutForRail, signal: AbortSignal): Promise<CancelOutcome>;
}

/** Picks the rail for a payout (by its destination member and provider); undefined when none is connected. */
export interface RailRegistry {
  railFor(payout: PayoutForRail): PayoutRail | undefined;
}

/** Production with no partner connected: no rail, so nothing is ever sent anywhere. */
export const NO_RAILS: RailRegistry = { railFor: () => undefined };

export class NoRailError extends Error {
  override name = 'NoRailError';
}

export function requireRail(registry: RailRegistry, payout: PayoutForRail): PayoutRail {
  const rail = registry.railFor(payout);
  if (!rail) throw new NoRailError(`no rail is connected for ${payout.payoutProviderId}`);
  return rail;
}
