// The one Error body of the contract (section 2) and the typed error that carries it. Domain
// services return their expected failures as values; routes turn them into ApiError through a
// table per domain, and the single error handler in plugins.ts writes every failure.
import { Type, type Static } from 'typebox';

/** Every contract error code with its HTTP status. */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_SCOPE: 403,
  NOT_FOUND: 404,
  INVALID_STATE: 409,
  DUPLICATE_SOURCE_MEMBER_PAYOUT_ID: 409,
  REQUEST_IN_PROGRESS: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  UNKNOWN_PAYOUT_PROVIDER: 422,
  UNSUPPORTED_CURRENCY: 422,
  UNSUPPORTED_PAYOUT_METHOD: 422,
  LIMIT_EXCEEDED: 422,
  INSUFFICIENT_PREFUND: 422,
  UNKNOWN_DESTINATION_MEMBER: 422,
  CORRIDOR_INACTIVE: 422,
  RATE_NOT_FOUND: 422,
  RATE_EXPIRED: 422,
  RATE_ALREADY_USED: 422,
  RATE_MISMATCH: 422,
  AMOUNT_ABOVE_CORRIDOR_MAX: 422,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const ErrorBody = Type.Object(
  {
    // An open set: a new code may be added in a minor version, so clients must accept codes they
    // do not know (and treat them by HTTP status). The known ones are listed in x-extensible-enum.
    code: Type.String({
      maxLength: 64,
      pattern: '^[A-Z][A-Z0-9_]*$',
      description: `Machine-readable error code. New codes may be added: handle unknown ones by the HTTP status. Known codes: ${ERROR_CODES.join(', ')}.`,
      'x-extensible-enum': ERROR_CODES,
    }),
    message: Type.String({ description: 'A sentence for people' }),
    detail: Type.String({ description: 'The offending field path and rule, or more about the cause' }),
  },
  {
    $id: 'Error',
    additionalProperties: false,
    examples: [{ code: 'VALIDATION_ERROR', message: 'The request is not valid.', detail: 'size: must be <= 100' }],
  },
);
export type ErrorBody = Static<typeof ErrorBody>;

export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: ErrorCode;
  readonly detail: string;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, detail = '', headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.detail = detail;
    this.headers = headers;
  }

  get statusCode(): number {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, detail: this.detail };
  }
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'The request does not match the schema (VALIDATION_ERROR)',
  401: 'Missing, malformed, forged or expired bearer token (UNAUTHORIZED)',
  403: 'The token lacks the scope of this operation (INSUFFICIENT_SCOPE)',
  404: 'Unknown resource, or one that belongs to another member (NOT_FOUND)',
  409: 'Not allowed in the resource\'s current state',
  413: 'Body over 64 KiB (PAYLOAD_TOO_LARGE)',
  415: 'The body is not JSON (UNSUPPORTED_MEDIA_TYPE)',
  422: 'A business rule refused the request',
  429: 'Over the per-client request rate (RATE_LIMITED); see Retry-After',
  500: 'Unexpected failure (INTERNAL_ERROR)',
  503: 'Not ready, shutting down or overloaded (SERVICE_UNAVAILABLE)',
};

/** One example body per error status: the OpenAPI document shows it, and mock mode answers it. */
export const ERROR_EXAMPLES: Record<number, ErrorBody> = {
  400: { code: 'VALIDATION_ERROR', message: 'The request is not valid.', detail: 'payoutAmt: must be a number' },
  401: { code: 'UNAUTHORIZED', message: 'A valid bearer token is required.', detail: 'Authorization: the token has expired' },
  403: { code: 'INSUFFICIENT_SCOPE', message: 'This operation needs the "payouts" scope.', detail: 'scope: "payouts" is required' },
  404: { code: 'NOT_FOUND', message: 'No such resource.', detail: 'payoutId: 0b8f8a4e-6f1d-4c1a-9d43-2a7c5e9b1f20' },
  409: { code: 'INVALID_STATE', message: 'Not allowed in the current state.', detail: 'payoutStatus: PRCD' },
  413: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large.', detail: 'body: at most 65536 bytes' },
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'The body must be JSON.', detail: 'content-type: application/json is required' },
  422: { code: 'INSUFFICIENT_PREFUND', message: 'Your prefund does not cover this payout.', detail: 'payoutAmt: payoutAmt + transferFee exceeds your available prefund' },
  429: { code: 'RATE_LIMITED', message: 'Too many requests for this client.', detail: 'limit: 1200 requests per minute' },
  500: { code: 'INTERNAL_ERROR', message: 'Something went wrong on our side.', detail: 'requestId: req-6f1d4c1a' },
  503: { code: 'SERVICE_UNAVAILABLE', message: 'The service is not available right now.', detail: 'starting or shutting down' },
};

/** Response schemas for the error statuses a route can produce, for its OpenAPI entry. */
export function errorResponses(...statuses: number[]) {
  const responses: Record<number, unknown> = {};
  for (const status of statuses) {
    const example = ERROR_EXAMPLES[status];
    responses[status] = Type.Ref('Error', { description: DESCRIPTIONS[status] ?? 'Error', ...(example ? { examples: [example] } : {}) });
  }
  return responses;
}
