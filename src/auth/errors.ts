// The auth domain's refusals (OAuth client administration) and how the contract answers each.
// The token endpoint answers in OAuth's own error format (RFC 6749 section 5.2), not this one.
import type { RefusalTable } from '../platform/http/refusals.ts';

export type ClientRefusal = 'UNKNOWN_MEMBER' | 'NOT_A_SOURCE_MEMBER' | 'CLIENT_ID_TAKEN' | 'UNKNOWN_CLIENT' | 'CLIENT_REVOKED';

export const CLIENT_REFUSALS = {
  UNKNOWN_CLIENT: { code: 'NOT_FOUND', message: 'No such client.', detail: 'clientId' },
  CLIENT_REVOKED: { code: 'INVALID_STATE', message: 'The client is revoked.', detail: 'clientId: state REVOKED' },
  UNKNOWN_MEMBER: { code: 'NOT_FOUND', message: 'No such member.', detail: 'memberId' },
  NOT_A_SOURCE_MEMBER: { code: 'INVALID_STATE', message: 'Only source members have clients.', detail: 'memberId' },
  CLIENT_ID_TAKEN: { code: 'INVALID_STATE', message: 'The client id is taken.', detail: 'clientId' },
} as const satisfies RefusalTable<ClientRefusal>;
