// The ledger's accounts, named by what they hold. Only PREFUND accounts hold a member's money
// and may never be overdrawn; the others are the service's own books.
export type AccountKind = 'PREFUND' | 'PAYOUT_CLEARING' | 'FEES' | 'FUNDING' | 'SOURCE_FUNDS' | 'LIQUIDITY' | 'TREASURY' | 'IN_TRANSIT';

export interface AccountSpec {
  kind: AccountKind;
  sourceMemberId: string | null;
  destinationMemberId: string | null;
  currency: string;
}

/** What the source member holds at the destination member for payouts there. */
export const prefundAccount = (sourceMemberId: string, destinationMemberId: string, currency: string): AccountSpec => ({
  kind: 'PREFUND', sourceMemberId, destinationMemberId, currency,
});

/** Money paid out to beneficiaries through the destination member. */
export const payoutClearingAccount = (destinationMemberId: string, currency: string): AccountSpec => ({
  kind: 'PAYOUT_CLEARING', sourceMemberId: null, destinationMemberId, currency,
});

/** The service's fee income in a currency. */
export const feesAccount = (currency: string): AccountSpec => ({
  kind: 'FEES', sourceMemberId: null, destinationMemberId: null, currency,
});

/** Money entering the ledger at a destination member (settlements, sandbox top-ups) or leaving it. */
export const fundingAccount = (destinationMemberId: string, currency: string): AccountSpec => ({
  kind: 'FUNDING', sourceMemberId: null, destinationMemberId, currency,
});

export const accountKey = (spec: AccountSpec) =>
  `${spec.kind}:${spec.sourceMemberId ?? ''}:${spec.destinationMemberId ?? ''}:${spec.currency}`;

export const mayOverdraw = (spec: AccountSpec) => spec.kind !== 'PREFUND';

/** What a source member sends in for settlements, before it reaches the service. */
export const sourceFundsAccount = (sourceMemberId: string, currency: string): AccountSpec => ({
  kind: 'SOURCE_FUNDS', sourceMemberId, destinationMemberId: null, currency,
});

/** The service's own pool in a currency, through which settlements pass. */
export const liquidityAccount = (currency: string): AccountSpec => ({
  kind: 'LIQUIDITY', sourceMemberId: null, destinationMemberId: null, currency,
});

/** The stablecoin the service holds after a settlement's buy, before the chain carries it. */
export const treasuryAccount = (currency: string): AccountSpec => ({
  kind: 'TREASURY', sourceMemberId: null, destinationMemberId: null, currency,
});

/** The stablecoin on its way to a destination member: broadcast, not yet final. */
export const inTransitAccount = (destinationMemberId: string, currency: string): AccountSpec => ({
  kind: 'IN_TRANSIT', sourceMemberId: null, destinationMemberId, currency,
});
