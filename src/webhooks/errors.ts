// The webhook endpoints' refusals and how the contract answers each.
import type { RefusalTable } from '../platform/http/refusals.ts';

export type EndpointRefusal = 'INVALID_URL' | 'TOO_MANY_ENDPOINTS' | 'UNKNOWN_ENDPOINT' | 'ENDPOINT_NOT_ENABLED' | 'TOO_MANY_TEST_EVENTS';

export const ENDPOINT_REFUSALS = {
  INVALID_URL: { code: 'VALIDATION_ERROR', message: 'The endpoint URL is not allowed.' },
  TOO_MANY_ENDPOINTS: { code: 'INVALID_STATE', message: 'You have as many webhook endpoints as allowed.' },
  UNKNOWN_ENDPOINT: { code: 'NOT_FOUND', message: 'No such webhook endpoint.' },
  ENDPOINT_NOT_ENABLED: { code: 'INVALID_STATE', message: 'The webhook endpoint is not enabled.' },
  TOO_MANY_TEST_EVENTS: { code: 'RATE_LIMITED', message: 'Too many test events for this endpoint.' },
} as const satisfies RefusalTable<EndpointRefusal>;
