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
  /** The answer's Retry-After in milliseconds (429, 503), or null. */
  retryAfterMs?: number | null;
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
  /**
   * How long the service asked to wait before trying again (its Retry-After, in milliseconds), or
   * null. Set on a 429 or 503 that the client did not retry itself: the request is not safe to
   * repeat, the wait is longer than its bounds allow, or its attempts are used up.
   */
  readonly retryAfterMs: number | null;

  constructor(fields: ApiErrorFields) {
    super(fields.message);
    this.status = fields.status;
    this.code = fields.code;
    this.detail = fields.detail;
    this.requestId = fields.requestId;
    this.retryAfterMs = fields.retryAfterMs ?? null;
  }

  /** Reads a non-2xx answer (its body is consumed) into an ApiError. */
  static async fromResponse(response: Response): Promise<ApiError> {
    const requestId = response.headers.get('x-request-id');
    const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'), Date.now());
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
        retryAfterMs,
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
        retryAfterMs,
      });
    }
    return new ApiError({
      status: response.status,
      code: 'UNEXPECTED_RESPONSE',
      message: `Unexpected answer: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`,
      detail: text.slice(0, 500),
      requestId,
      retryAfterMs,
    });
  }
}

/**
 * A request that got no complete answer within its time limit (`timeoutMs` of createClient, per
 * attempt). Whether the service acted on it is unknown: send it again only if it is idempotent
 * (a GET, a payout creation, a settlement creation with the same Idempotency-Key, process).
 */
export class RequestTimeoutError extends Error {
  override name = 'RequestTimeoutError';
  readonly method: string;
  readonly url: string;
  readonly timeoutMs: number;

  constructor(fields: { method: string; url: string; timeoutMs: number; cause?: unknown }) {
    super(`${fields.method} ${fields.url}: no answer within ${fields.timeoutMs} ms`, { cause: fields.cause });
    this.method = fields.method;
    this.url = fields.url;
    this.timeoutMs = fields.timeoutMs;
  }
}

/** RFC 9110 section 10.2.3: delay-seconds or an HTTP-date; null when absent or unreadable. */
export function parseRetryAfterMs(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const dateMs = Date.parse(text);
  if (Number.isNaN(dateMs) || !/[a-z]/i.test(text)) return null;
  return Math.max(0, dateMs - nowMs);
}

/** True for an error that a retry with the same request may get past: the request never got an answer. */
export function isNetworkError(error: unknown): boolean {
  if (error instanceof ApiError) return false;
  if (error instanceof RequestTimeoutError) return false;
  if (!(error instanceof Error)) return false;
  // The caller's own abort or timeout is a decision, not a dropped connection.
  return error.name !== 'AbortError' && error.name !== 'TimeoutError';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
