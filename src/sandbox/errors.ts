// The sandbox controls' refusals and how the contract answers each.
import type { RefusalTable } from '../platform/http/refusals.ts';

export type PrefundRefusal = 'UNKNOWN_DESTINATION_MEMBER' | 'UNSUPPORTED_CURRENCY' | 'INSUFFICIENT_PREFUND' | 'INVALID_AMOUNT';

export const PREFUND_REFUSALS = {
  UNKNOWN_DESTINATION_MEMBER: { code: 'UNKNOWN_DESTINATION_MEMBER', message: 'No corridor to this destination member.' },
  UNSUPPORTED_CURRENCY: { code: 'UNSUPPORTED_CURRENCY', message: 'The destination member does not hold this currency.' },
  INSUFFICIENT_PREFUND: { code: 'INSUFFICIENT_PREFUND', message: 'Not enough unreserved prefund for this debit.' },
  INVALID_AMOUNT: { code: 'VALIDATION_ERROR', message: 'The amount is not valid.' },
} as const satisfies RefusalTable<PrefundRefusal>;
