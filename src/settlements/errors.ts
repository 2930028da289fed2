// The settlement area's refusals (rate locks, creation, its sandbox controls) and how the contract
// answers each.
import type { RefusalTable } from '../platform/http/refusals.ts';

/** The checks of a rate lock, in their order. */
export type RateRefusal = 'UNKNOWN_DESTINATION_MEMBER' | 'VALIDATION_ERROR' | 'UNSUPPORTED_CURRENCY' | 'CORRIDOR_INACTIVE' | 'NOT_QUOTED' | 'RATE_SOURCE_UNAVAILABLE';

/** The checks of a settlement creation (CONTRACT section 5). */
export type CreateRefusal =
  | 'VALIDATION_ERROR' | 'UNKNOWN_DESTINATION_MEMBER' | 'CORRIDOR_INACTIVE' | 'RATE_NOT_FOUND' | 'RATE_ALREADY_USED'
  | 'RATE_EXPIRED' | 'RATE_MISMATCH' | 'AMOUNT_ABOVE_CORRIDOR_MAX';

/** An Idempotency-Key that cannot be honoured (platform/idempotency.ts). */
export type KeyRefusal = 'IDEMPOTENCY_KEY_REUSED' | 'REQUEST_IN_PROGRESS';

export type SettlementRefusal = RateRefusal | CreateRefusal | KeyRefusal | 'UNKNOWN_SETTLEMENT' | 'NOT_CANCELLABLE' | 'SETTLEMENT_FINISHED' | 'UNKNOWN_RATE';

export const SETTLEMENT_REFUSALS = {
  VALIDATION_ERROR: { code: 'VALIDATION_ERROR', message: 'The request is not valid.' },
  UNKNOWN_DESTINATION_MEMBER: { code: 'UNKNOWN_DESTINATION_MEMBER', message: 'No such destination member.' },
  UNSUPPORTED_CURRENCY: { code: 'UNSUPPORTED_CURRENCY', message: 'The destination member does not settle in this currency.' },
  CORRIDOR_INACTIVE: { code: 'CORRIDOR_INACTIVE', message: 'You have no active corridor to this destination member.' },
  NOT_QUOTED: { code: 'SERVICE_UNAVAILABLE', message: 'No rate can be quoted for this corridor right now; try again later.' },
  RATE_SOURCE_UNAVAILABLE: { code: 'SERVICE_UNAVAILABLE', message: 'The price feed gives no current rate right now; nothing was locked. Try again later.' },
  RATE_NOT_FOUND: { code: 'RATE_NOT_FOUND', message: 'No such rate: get one from GET /v2/settlement-rates.' },
  RATE_ALREADY_USED: { code: 'RATE_ALREADY_USED', message: 'This rate was already used by another settlement.' },
  RATE_EXPIRED: { code: 'RATE_EXPIRED', message: 'This rate lock has expired: get a new one.' },
  RATE_MISMATCH: { code: 'RATE_MISMATCH', message: 'This rate was locked for another destination member.' },
  AMOUNT_ABOVE_CORRIDOR_MAX: { code: 'AMOUNT_ABOVE_CORRIDOR_MAX', message: 'The amount is above the corridor maximum.' },
  IDEMPOTENCY_KEY_REUSED: {
    code: 'IDEMPOTENCY_KEY_REUSED', message: 'This Idempotency-Key was used for a different request.',
    detail: 'Idempotency-Key: used with a different request body',
  },
  REQUEST_IN_PROGRESS: {
    code: 'REQUEST_IN_PROGRESS', message: 'The first request with this Idempotency-Key has not finished.', detail: 'Idempotency-Key: retry when it has',
  },
  UNKNOWN_SETTLEMENT: { code: 'NOT_FOUND', message: 'No such settlement.' },
  NOT_CANCELLABLE: { code: 'INVALID_STATE', message: 'Only a scheduled settlement can be cancelled.' },
  SETTLEMENT_FINISHED: { code: 'INVALID_STATE', message: 'The settlement is finished; it cannot move on.' },
  UNKNOWN_RATE: { code: 'NOT_FOUND', message: 'No such rate.' },
} as const satisfies RefusalTable<SettlementRefusal>;
