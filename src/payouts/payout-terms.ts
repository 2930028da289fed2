// The rules of a payout creation that need no stored payout: the provider and its currency, the
// caller's corridor to its destination member, method, segment, exact amount, the rail's field
// rules, the limits, and the fee; and the answer a created payout gets. create-payout.ts runs them
// before it reserves; mock mode runs the same functions against the sandbox world held as code,
// so both refuse and price alike.
import { parseAmount, percentageOf, toJsonNumber } from '../platform/money.ts';
import type { CorridorTerms } from '../members/repo.ts';
import { checkFieldRules } from '../providers/field-rules.ts';
import type { PayoutMethod, Provider, Segment } from '../providers/model.ts';
import type { CreatePayoutInput } from './input.ts';
import { fullName } from './names.ts';
import { links } from './views.ts';
import type { CreatePayoutResponse } from './schemas.ts';
import { ok, refuse, type Result } from '../platform/result.ts';
import type { TermsRefusal } from './errors.ts';


export interface PayoutTerms {
  provider: Provider;
  method: PayoutMethod;
  segment: Segment;
  amountMinor: bigint;
  feeMinor: bigint;
}

export type TermsResult = Result<PayoutTerms, TermsRefusal>;

/** Where the rules read the catalogue and the corridors (the database's caches, or the sandbox world). */
export interface PayoutRuleSources {
  findProvider(payoutProviderId: string): Promise<Provider | undefined>;
  corridors(sourceMemberId: string, destinationMemberId: string): Promise<CorridorTerms[]>;
}

/** The checks in the contract's order; the first that fails is the answer. */
export async function payoutTerms(sources: PayoutRuleSources, memberId: string, input: CreatePayoutInput): Promise<TermsResult> {
  const provider = await sources.findProvider(input.payoutProviderId);
  if (!provider) return refuse('UNKNOWN_PAYOUT_PROVIDER', `payoutProviderId: ${input.payoutProviderId} is not a payout provider`);
  const currency = input.destinationCcy;
  if (!provider.currencies.includes(currency)) {
    return refuse('UNSUPPORTED_CURRENCY', `destinationCcy: ${provider.payoutProviderId} pays out in ${provider.currencies.join(', ')}`);
  }
  const corridors = await sources.corridors(memberId, provider.destinationMemberId);
  if (!corridors.some((c) => c.destinationCcy === currency && c.active)) {
    return refuse('UNKNOWN_PAYOUT_PROVIDER', `payoutProviderId: ${provider.payoutProviderId} is not available to you (no active corridor)`);
  }
  const method = input.payoutMethod ?? (provider.payoutMethods.length === 1 ? provider.payoutMethods[0] : undefined);
  if (method === undefined) return refuse('VALIDATION_ERROR', `payoutMethod: required for ${provider.payoutProviderId} (${provider.payoutMethods.join(', ')})`);
  if (!provider.payoutMethods.includes(method)) {
    return refuse('UNSUPPORTED_PAYOUT_METHOD', `payoutMethod: ${provider.payoutProviderId} offers ${provider.payoutMethods.join(', ')}`);
  }
  const segment = input.segment ?? 'C2C';
  if (!provider.segments.includes(segment)) return refuse('VALIDATION_ERROR', `segment: ${provider.payoutProviderId} serves ${provider.segments.join(', ')}`);
  const amount = parseAmount(input.payoutAmt, currency);
  if (!amount.ok) return refuse('VALIDATION_ERROR', `payoutAmt: more decimals than ${currency} has`);
  const violation = checkFieldRules(provider.fields, input as unknown as Record<string, unknown>, method);
  if (violation) return refuse('VALIDATION_ERROR', `${violation.field}: ${violation.rule}`);
  const limit = provider.limits.find((l) => l.currency === currency);
  const min = limit && parseAmount(limit.minimumLimit, currency);
  const max = limit && parseAmount(limit.maximumLimit, currency);
  if (!limit || !min?.ok || !max?.ok || amount.minor < min.minor || amount.minor > max.minor) {
    const range = limit ? `between ${limit.minimumLimit} and ${limit.maximumLimit} ${currency}` : `within the provider's limits`;
    return refuse('LIMIT_EXCEEDED', `payoutAmt: must be ${range}`);
  }
  return ok({ provider, method, segment, amountMinor: amount.minor, feeMinor: feeOf(provider, currency, amount.minor) });
}

/** The provider's fixed fee plus its percentage of the amount (half-up), in minor units. */
function feeOf(provider: Provider, currency: string, amountMinor: bigint): bigint {
  const feeTerms = provider.fees.find((f) => f.currency === currency);
  if (!feeTerms) return 0n;
  const fixed = parseAmount(feeTerms.fixedFee, currency);
  if (!fixed.ok) throw new Error(`provider ${provider.payoutProviderId}: fixed fee is not exact`);
  return fixed.minor + percentageOf(amountMinor, feeTerms.percentageFee);
}

/** When a payout created now expires. */
export const expiryOf = (creationTime: Date, expiryHours: number): Date => new Date(creationTime.getTime() + expiryHours * 3_600_000);

/** The 201 answer to a creation (kept with the payout, and replayed as it was). */
export function createResponseOf(payoutId: string, input: CreatePayoutInput, terms: PayoutTerms, expiryTime: Date): CreatePayoutResponse {
  const currency = input.destinationCcy;
  return {
    payoutId,
    sourceMemberPayoutId: input.sourceMemberPayoutId,
    payoutStatus: 'ACCP',
    destinationCcy: currency,
    payoutAmt: toJsonNumber(terms.amountMinor, currency),
    transferFee: toJsonNumber(terms.feeMinor, currency),
    expiryTime: expiryTime.toISOString(),
    beneficiaryName: fullName(input.beneficiary),
    links: links(payoutId),
  };
}
