// The refusals of member and corridor administration. Operators meet them through the admin CLI,
// which prints `ERROR: detail`; no HTTP operation answers them, so there is no contract table.
export type MemberRefusal =
  | 'INVALID' | 'MEMBER_EXISTS' | 'UNKNOWN_SOURCE_MEMBER' | 'UNKNOWN_DESTINATION_MEMBER' | 'NOT_A_SOURCE_MEMBER' | 'NOT_A_DESTINATION_MEMBER'
  | 'UNSUPPORTED_CURRENCY' | 'AMOUNT_REQUIRED' | 'AMOUNT_NOT_POSITIVE';
