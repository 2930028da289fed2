// ApiError: every non-2xx answer, typed, with the service's error body and the request id.
import type { components, paths } from './schema.d.ts';

/** The service's error codes (the `code` of its Error body). */
export type ErrorCode = components['schemas']['Error']['code'];
/** RFC 6749 section 5.2 error codes of POST /oauth2/token. */
export type OAuthErrorCode = paths['/oauth2/token']['post']['responses'][400]['content']['application/json']['error'];
/** Anything else: a non-2xx answer whose body is neither of the two (a proxy's HTML page, say). */
export type UnexpectedCode = 'UNEXPECTED_RESPONSE';
export type ApiErrorCode = ErrorCode | OAuthErrorCode | UnexpectedCode;

export interface ApiErrorFields {
  status: number;
  code: ApiErrorCode;
  message: string;
  detail: string;
  requestId: string | null;
}

export class ApiError extends Error {
  override name = 'ApiError';
  /** The HTTP status of the answer. */
  readonly status: number;
  readonly code: ApiErrorCode;
  /** The offending field path and rule, or more about the cause. */
  readonly detail: string;
  /** The answer's X-Request-Id (quote it when you contact support). */
  readonly requestId: string | null;

  constructor(fields: ApiErrorFields) {
    super(fields.message);
    this.status = fields.status;
    this.code = fields.code;
    this.detail = fields.detail;
    this.requestId = fields.requestId;
  }

  /** Reads a non-2xx answer (its body is consumed) into an ApiError. */
  static async fromResponse(response: Response): Promise<ApiError> {
    const requestId = response.headers.get('x-request-id');
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (isObject(body) && typeof body['code'] === 'string' && typeof body['message'] === 'string') {
      return new ApiError({
        status: response.status,
        code: body['code'] as ErrorCode,
        message: body['message'],
        detail: typeof body['detail'] === 'string' ? body['detail'] : '',
        requestId,
      });
    }
    if (isObject(body) && typeof body['error'] === 'string') {
      const detail = typeof body['error_description'] === 'string' ? body['error_description'] : '';
      return new ApiError({
        status: response.status,
        code: body['error'] as OAuthErrorCode,
        message: `The token request was refused (${body['error']}).`,
        detail,
        requestId,
      });
    }
    return new ApiError({
      status: response.status,
      code: 'UNEXPECTED_RESPONSE',
      message: `Unexpected answer: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`,
      detail: text.slice(0, 500),
      requestId,
    });
  }
}

/** True for an error that a retry with the same request may get past: the request never got an answer. */
export function isNetworkError(error: unknown): boolean {
  if (error instanceof ApiError) return false;
  if (!(error instanceof Error)) return false;
  // The caller's own abort or timeout is a decision, not a dropped connection.
  return error.name !== 'AbortError' && error.name !== 'TimeoutError';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
