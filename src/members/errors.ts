import type { RefusalTable } from '../platform/http/refusals.ts';
// The refusals of member and corridor administration. Operators meet them through the admin CLI,
// which prints `ERROR: detail`; no HTTP operation answers them, so there is no contract table.
export type MemberRefusal =
  | 'INVALID' | 'MEMBER_EXISTS' | 'UNKNOWN_SOURCE_MEMBER' | 'UNKNOWN_DESTINATION_MEMBER' | 'NOT_A_SOURCE_MEMBER' | 'NOT_A_DESTINATION_MEMBER'
  | 'UNSUPPORTED_CURRENCY' | 'AMOUNT_REQUIRED' | 'AMOUNT_NOT_POSITIVE';

/** The refusals of a prefund statement read, and how the contract answers them. */
export type StatementRefusal = 'NOT_FOUND' | 'INVALID';

export const STATEMENT_REFUSALS = {
  NOT_FOUND: { code: 'NOT_FOUND', message: 'No such destination member.' },
  INVALID: { code: 'VALIDATION_ERROR', message: 'The request is not valid.' },
} as const satisfies RefusalTable<StatementRefusal>;
