// A signed call to a partner's base URL (docs/partner-guide.md): every request is signed with the
// service's key and bounded by the caller's AbortSignal, and retried (a few times, within that
// signal) on no answer, a 5xx or a 429. Only calls the protocol makes idempotent go through here.
// An answer larger than ANSWER_BYTES_MAX or not JSON throws: the outcome is unknown.
import { request, type Dispatcher } from 'undici';
import { readJsonAnswer } from '../platform/answer-body.ts';
import { signRequest, type SigningKey } from './signatures.ts';

export const CALL_ATTEMPTS_MAX = 3;
export const CALL_RETRY_DELAY_MS = 100;
export const ANSWER_BYTES_MAX = 64 * 1024;

/** The partner's answer was not one the protocol defines, or never came: the outcome is unknown. */
export class PartnerUnclearError extends Error {
  override name = 'PartnerUnclearError';
}

export interface PartnerAnswer {
  statusCode: number;
  body: unknown;
}

export interface SignedCallOptions {
  /** The partner's base URL, without a trailing slash. */
  baseUrl: string;
  signingKey: SigningKey;
  dispatcher: Dispatcher;
  attemptsMax?: number;
}

const readBody = (body: Dispatcher.ResponseData['body']) => readJsonAnswer(body, ANSWER_BYTES_MAX, (why) => new PartnerUnclearError(`answer ${why}`));

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    }, { once: true });
  });
}

/** Worth another attempt: the partner did not answer, or answered that it cannot now. */
const retriable = (statusCode: number) => statusCode >= 500 || statusCode === 429;

export function createSignedCall(options: SignedCallOptions) {
  const attemptsMax = options.attemptsMax ?? CALL_ATTEMPTS_MAX;

  async function once(method: 'GET' | 'POST', path: string, body: string | undefined, signal: AbortSignal): Promise<PartnerAnswer> {
    const url = `${options.baseUrl}${path}`;
    const headers = await signRequest({ method, url, headers: body === undefined ? {} : { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body }) }, options.signingKey);
    const response = await request(url, { method, headers: { ...headers, accept: 'application/json' }, body, signal, dispatcher: options.dispatcher });
    if (retriable(response.statusCode)) {
      await response.body.dump();
      return { statusCode: response.statusCode, body: undefined };
    }
    return { statusCode: response.statusCode, body: await readBody(response.body) };
  }

  /** Up to attemptsMax attempts within the signal; throws when none came back with a usable answer. */
  return async function call(method: 'GET' | 'POST', path: string, body: string | undefined, signal: AbortSignal): Promise<PartnerAnswer> {
    let last: unknown;
    for (let attempt = 1; attempt <= attemptsMax; attempt++) {
      if (attempt > 1) await pause(CALL_RETRY_DELAY_MS * 2 ** (attempt - 2), signal);
      try {
        const answer = await once(method, path, body, signal);
        if (!retriable(answer.statusCode)) return answer;
        last = new PartnerUnclearError(`${method} ${path} answered ${answer.statusCode}`);
      } catch (error) {
        if (signal.aborted || error instanceof PartnerUnclearError) throw error;
        last = error; // a connection refused, reset or dropped: the call may be made again safely
      }
    }
    throw last instanceof Error ? last : new PartnerUnclearError(`${method} ${path} failed`);
  };
}

export const unclearAnswer = (what: string, answer: PartnerAnswer) =>
  new PartnerUnclearError(`${what}: unexpected answer ${answer.statusCode} ${JSON.stringify(answer.body)?.slice(0, 200)}`);
