// The payout provider catalogue's refusals and how the contract answers each.
import type { RefusalTable } from '../platform/http/refusals.ts';

export type ProviderRefusal = 'UNKNOWN_PROVIDER' | 'LIMITS_FILTER_MISSING';

export const PROVIDER_REFUSALS = {
  UNKNOWN_PROVIDER: { code: 'NOT_FOUND', message: 'No such payout provider.' },
  LIMITS_FILTER_MISSING: { code: 'VALIDATION_ERROR', message: 'Say which limits you want.', detail: 'query: countryCode or payoutProviderId is required' },
} as const satisfies RefusalTable<ProviderRefusal>;
