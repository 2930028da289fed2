// Timeouts and retries, as a fetch wrapped around the caller's. Every attempt gets a time limit.
// A request that is idempotent (sending it twice has the effect of sending it once) is sent again
// after a 429 or 503 (waiting the Retry-After the service asks for, or a jittered backoff), after
// a 409 REQUEST_IN_PROGRESS of its Idempotency-Key, and after a network error. Any other request is
// sent once: its 429 or 503 reaches the caller as an ApiError with `retryAfterMs`. All bounded.
import type { FetchFn } from './auth.ts';
import { isNetworkError, parseRetryAfterMs, RequestTimeoutError } from './errors.ts';

export interface RetryOptions {
  /** Attempts in all, the first included, for an idempotent request (default 4; 1 turns retries off). */
  attempts?: number;
  /** Backoff when the answer has no Retry-After: a random wait up to this (default 250 ms), doubling each attempt. */
  baseDelayMs?: number;
  /** The longest single wait (default 10000 ms); a Retry-After asking for longer is not waited for. */
  maxDelayMs?: number;
  /** The most waited in all across the retries of one request (default 30000 ms). */
  maxTotalDelayMs?: number;
}

export interface TransportOptions {
  retry: RetryOptions;
  /** The time limit of one attempt, answer body included (default 30000 ms). */
  timeoutMs: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
const ATTEMPTS_MAX = 10;

/**
 * POSTs that are idempotent by contract without an Idempotency-Key: a payout creation (the service
 * answers the original payout for the same sourceMemberPayoutId), process (PNDG and PRCD answer
 * their current state), and a token request (it changes nothing).
 */
const IDEMPOTENT_POSTS: readonly RegExp[] = [/\/v2\/payouts$/, /\/v2\/payouts\/[^/]+\/process$/, /\/oauth2\/token$/];
/** POSTs the service makes idempotent by their Idempotency-Key (elsewhere the header is ignored). */
const KEYED_POSTS: readonly RegExp[] = [/\/v2\/settlements$/];

/** True when sending this request twice has the effect of sending it once. */
export function isIdempotent(request: Request): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  if (request.method !== 'POST') return false;
  const path = new URL(request.url).pathname;
  if (IDEMPOTENT_POSTS.some((pattern) => pattern.test(path))) return true;
  return request.headers.has('idempotency-key') && KEYED_POSTS.some((pattern) => pattern.test(path));
}

export function createTransport(fetch: FetchFn, options: TransportOptions): FetchFn {
  const attemptsMax = Math.min(ATTEMPTS_MAX, Math.max(1, options.retry.attempts ?? 4));
  const baseDelayMs = options.retry.baseDelayMs ?? 250;
  const maxDelayMs = options.retry.maxDelayMs ?? 10_000;
  const maxTotalDelayMs = options.retry.maxTotalDelayMs ?? 30_000;

  return async (first) => {
    const attempts = isIdempotent(first) ? attemptsMax : 1;
    let request = first;
    let waitedMs = 0;
    for (let attempt = 1; ; attempt++) {
      // the body can be read once: keep a copy for the next attempt
      const next = attempt < attempts ? request.clone() : undefined;
      const backoffMs = Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
      let delayMs: number | undefined;
      try {
        const response = await sendWithTimeout(fetch, request, options.timeoutMs);
        delayMs = next ? await retryDelayMs(response, backoffMs) : undefined;
        if (delayMs === undefined || delayMs > maxDelayMs || waitedMs + delayMs > maxTotalDelayMs) return response;
        await response.body?.cancel().catch(() => undefined);
      } catch (error) {
        if (!next || !isNetworkError(error) || waitedMs + backoffMs > maxTotalDelayMs) throw error;
        delayMs = backoffMs;
      }
      await sleep(delayMs, first.signal);
      waitedMs += delayMs;
      request = next!;
    }
  };
}

/** How long to wait before sending again after this answer, or undefined when it is final. */
async function retryDelayMs(response: Response, backoffMs: number): Promise<number | undefined> {
  if (response.status === 429 || response.status === 503) {
    const askedMs = parseRetryAfterMs(response.headers.get('retry-after'), Date.now());
    // up to a tenth more than asked, so that clients told the same wait do not all come back at once
    return askedMs === null ? backoffMs : askedMs + Math.random() * askedMs * 0.1;
  }
  if (response.status === 409 && (await errorCode(response)) === 'REQUEST_IN_PROGRESS') return backoffMs;
  return undefined;
}

async function errorCode(response: Response): Promise<string | undefined> {
  const body: unknown = await response.clone().json().catch(() => undefined);
  const code = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['code'] : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** One attempt, aborted when `timeoutMs` passes (or when the caller's own signal aborts). */
async function sendWithTimeout(fetch: FetchFn, request: Request, timeoutMs: number): Promise<Response> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const timed = new Request(request, { signal: eitherSignal(request.signal, timeout) });
  try {
    const response = await fetch(timed);
    return timeout.aborted ? response : withTimedBody(response, request, timeoutMs, timeout);
  } catch (error) {
    if (timeout.aborted && !request.signal.aborted) throw new RequestTimeoutError({ method: request.method, url: request.url, timeoutMs, cause: error });
    throw error;
  }
}

/** The answer, whose body (read later by the caller) still counts against the time limit: its error becomes a RequestTimeoutError. */
function withTimedBody(response: Response, request: Request, timeoutMs: number, timeout: AbortSignal): Response {
  if (response.body === null || response.status === 204 || response.status === 205 || response.status === 304) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(timeout.aborted ? new RequestTimeoutError({ method: request.method, url: request.url, timeoutMs, cause: error }) : error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** AbortSignal.any of the two (Node 20.3+), or the same by hand on an older runtime. */
function eitherSignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([a, b]);
  const controller = new AbortController();
  for (const signal of [a, b]) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
