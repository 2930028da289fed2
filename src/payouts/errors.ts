// The payout area's refusals at its HTTP boundary (creation, process, cancel, the list, the
// sandbox report) and how the contract answers each. The state machine's own results (apply.ts,
// doubt.ts, review.ts, partner-report.ts) stay as they are: the use cases translate them.
import type { RefusalTable } from '../platform/http/refusals.ts';

/** The checks of a creation that need no lock, in the contract's order (payout-terms.ts). */
export type TermsRefusal = 'VALIDATION_ERROR' | 'UNKNOWN_PAYOUT_PROVIDER' | 'UNSUPPORTED_CURRENCY' | 'UNSUPPORTED_PAYOUT_METHOD' | 'LIMIT_EXCEEDED';

export type CreateRefusal = TermsRefusal | 'INSUFFICIENT_PREFUND' | 'DUPLICATE_SOURCE_MEMBER_PAYOUT_ID';

export type PayoutRefusal = CreateRefusal | 'NOT_FOUND' | 'INVALID_STATE' | 'NO_RAIL';

export const PAYOUT_REFUSALS = {
  NO_RAIL: { code: 'SERVICE_UNAVAILABLE', message: 'The payout partner is not reachable; the payout was not sent.' },
  VALIDATION_ERROR: { code: 'VALIDATION_ERROR', message: 'The request is not valid.' },
  UNKNOWN_PAYOUT_PROVIDER: { code: 'UNKNOWN_PAYOUT_PROVIDER', message: 'No such payout provider for you.' },
  UNSUPPORTED_CURRENCY: { code: 'UNSUPPORTED_CURRENCY', message: 'The payout provider does not pay out in this currency.' },
  UNSUPPORTED_PAYOUT_METHOD: { code: 'UNSUPPORTED_PAYOUT_METHOD', message: 'The payout provider does not offer this payout method.' },
  LIMIT_EXCEEDED: { code: 'LIMIT_EXCEEDED', message: 'The amount is outside the payout provider\'s limits.' },
  INSUFFICIENT_PREFUND: { code: 'INSUFFICIENT_PREFUND', message: 'Not enough available prefund for this payout and its fee.' },
  DUPLICATE_SOURCE_MEMBER_PAYOUT_ID: {
    code: 'DUPLICATE_SOURCE_MEMBER_PAYOUT_ID', message: 'This sourceMemberPayoutId was already used for a different payout.',
  },
  NOT_FOUND: { code: 'NOT_FOUND', message: 'No such payout.' },
  INVALID_STATE: { code: 'INVALID_STATE', message: 'The payout\'s current state does not allow this.' },
} as const satisfies RefusalTable<PayoutRefusal>;
