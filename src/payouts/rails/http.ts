// The HTTP rail: a payout partner reached over the partner protocol (docs/partner-guide.md,
// partners/protocol.ts). Every call is signed with the service's key and bounded by the caller's
// AbortSignal. Calls are retried (a few times, within that signal) only where the protocol makes
// it safe: status reads, and submit and cancel, which the partner must treat as idempotent by
// payoutId. An answer that is not exactly one the protocol defines throws: the caller treats the
// payout as in doubt (rail.ts), never as failed or done.
import { Agent, request, type Dispatcher } from 'undici';
import { Value } from 'typebox/value';
import { PartnerCancelAnswer, PartnerNotFound, PartnerPayoutState, type PartnerPayoutRequest } from '../../partners/protocol.ts';
import { signRequest, type SigningKey } from '../../partners/signatures.ts';
import { formatMinor, parseAmount } from '../../platform/money.ts';
import { readJsonAnswer } from '../../platform/answer-body.ts';
import type { CancelOutcome, PartnerStatus, PayoutForRail, PayoutRail, SubmitOutcome } from './rail.ts';

export const RAIL_ATTEMPTS_MAX = 3;
export const RAIL_RETRY_DELAY_MS = 100;
export const RAIL_ANSWER_BYTES_MAX = 64 * 1024;

/** The partner's answer was not one the protocol defines, or never came: the outcome is unknown. */
export class RailUnclearError extends Error {
  override name = 'RailUnclearError';
}

interface Answer {
  statusCode: number;
  body: unknown;
}

const readBody = (body: Dispatcher.ResponseData['body']) => readJsonAnswer(body, RAIL_ANSWER_BYTES_MAX, (why) => new RailUnclearError(`answer ${why}`));

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

export interface HttpRailOptions {
  /** The partner's base URL, without a trailing slash. */
  baseUrl: string;
  signingKey: SigningKey;
  dispatcher: Dispatcher;
  attemptsMax?: number;
}

export function createHttpRail(options: HttpRailOptions): PayoutRail {
  const attemptsMax = options.attemptsMax ?? RAIL_ATTEMPTS_MAX;

  async function once(method: 'GET' | 'POST', path: string, body: string | undefined, signal: AbortSignal): Promise<Answer> {
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
  async function call(method: 'GET' | 'POST', path: string, body: string | undefined, signal: AbortSignal): Promise<Answer> {
    let last: unknown;
    for (let attempt = 1; attempt <= attemptsMax; attempt++) {
      if (attempt > 1) await pause(RAIL_RETRY_DELAY_MS * 2 ** (attempt - 2), signal);
      try {
        const answer = await once(method, path, body, signal);
        if (!retriable(answer.statusCode)) return answer;
        last = new RailUnclearError(`${method} ${path} answered ${answer.statusCode}`);
      } catch (error) {
        if (signal.aborted || error instanceof RailUnclearError) throw error;
        last = error; // a connection refused, reset or dropped: the call may be made again safely
      }
    }
    throw last instanceof Error ? last : new RailUnclearError(`${method} ${path} failed`);
  }

  const unclear = (what: string, answer: Answer) => new RailUnclearError(`${what}: unexpected answer ${answer.statusCode} ${JSON.stringify(answer.body)?.slice(0, 200)}`);

  function stateOf(payout: PayoutForRail, answer: Answer, what: string): PartnerPayoutState {
    if (answer.statusCode !== 200 || !Value.Check(PartnerPayoutState, answer.body)) throw unclear(what, answer);
    const state = answer.body as PartnerPayoutState;
    if (state.payoutId !== payout.payoutId) throw unclear(`${what} (another payoutId)`, answer);
    return state;
  }

  /** The amount in the currency's own decimals ("1234.5600" as stored is sent as "1234.56"), exactly. */
  const amountText = (payout: PayoutForRail) => {
    const amount = parseAmount(payout.payoutAmt, payout.destinationCcy);
    if (!amount.ok) throw new Error(`payout ${payout.payoutId}: amount ${payout.payoutAmt} ${payout.destinationCcy} is not sendable (${amount.error})`);
    return formatMinor(amount.minor, payout.destinationCcy);
  };
  const cashout = (state: { cashoutStatus?: string | undefined }) => (state.cashoutStatus !== undefined ? { cashoutStatus: state.cashoutStatus } : {});
  const path = (payout: PayoutForRail) => `/v1/payouts/${encodeURIComponent(payout.payoutId)}`;

  return {
    async submit(payout, signal): Promise<SubmitOutcome> {
      const body: PartnerPayoutRequest = {
        payoutId: payout.payoutId, payoutProviderId: payout.payoutProviderId, payoutMethod: payout.payoutMethod,
        destinationCcy: payout.destinationCcy, payoutAmt: amountText(payout), sender: payout.sender, beneficiary: payout.beneficiary,
      };
      const answer = await call('POST', '/v1/payouts', JSON.stringify(body), signal);
      const state = stateOf(payout, answer, 'submit');
      switch (state.status) {
        case 'PAID': return { outcome: 'CONFIRMED', ...cashout(state) };
        case 'PENDING': return { outcome: 'PENDING', ...cashout(state) };
        case 'REJECTED':
        case 'FAILED': return { outcome: 'REJECTED', reason: state.reason ?? 'Rejected by the partner' };
        case 'CANCELLED': return { outcome: 'REJECTED', reason: 'Cancelled before it was received' };
        case 'RETURNED': throw unclear('submit (RETURNED is no answer to a submission)', answer);
      }
    },

    async status(payout, signal): Promise<PartnerStatus> {
      const answer = await call('GET', path(payout), undefined, signal);
      if (answer.statusCode === 404) {
        if (Value.Check(PartnerNotFound, answer.body) && (answer.body as { payoutId: string }).payoutId === payout.payoutId) return { status: 'NOT_FOUND' };
        throw unclear('status', answer); // a 404 without the protocol's body may be a wrong base URL, not an unknown payout
      }
      const state = stateOf(payout, answer, 'status');
      switch (state.status) {
        case 'PAID': return { status: 'PAID', ...cashout(state) };
        case 'PENDING': return { status: 'PENDING', ...cashout(state) };
        case 'REJECTED': return { status: 'REJECTED', reason: state.reason ?? 'Rejected by the partner' };
        case 'FAILED': return { status: 'FAILED', reason: state.reason ?? 'Failed at the partner' };
        case 'RETURNED': return { status: 'RETURNED', ...(state.reason !== undefined ? { reason: state.reason } : {}) };
        case 'CANCELLED': return { status: 'CANCELLED' };
      }
    },

    async cancel(payout, signal): Promise<CancelOutcome> {
      const answer = await call('POST', `${path(payout)}/cancel`, undefined, signal);
      if (answer.statusCode !== 200 || !Value.Check(PartnerCancelAnswer, answer.body)) throw unclear('cancel', answer);
      const result = answer.body as PartnerCancelAnswer;
      if (result.payoutId !== payout.payoutId) throw unclear('cancel (another payoutId)', answer);
      if (result.outcome === 'CANCELLED') return { outcome: 'CANCELLED' };
      if (result.outcome === 'ALREADY_PAID') return { outcome: 'ALREADY_PAID', ...cashout(result) };
      if (result.status === undefined) throw unclear('cancel (ALREADY_FINAL without status)', answer);
      return { outcome: 'ALREADY_FINAL', status: result.status, ...(result.reason !== undefined ? { reason: result.reason } : {}) };
    },
  };
}

/** One connection pool for every partner, bounded per origin. */
export function createRailAgent(connectionsPerOriginMax = 16): Agent {
  return new Agent({ connections: connectionsPerOriginMax, keepAliveTimeout: 10_000 });
}
