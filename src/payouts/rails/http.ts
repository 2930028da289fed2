// The HTTP rail: a payout partner reached over the partner protocol (docs/partner-guide.md,
// partners/protocol.ts). Every call is signed with the service's key and bounded by the caller's
// AbortSignal. Calls are retried (a few times, within that signal) only where the protocol makes
// it safe: status reads, and submit and cancel, which the partner must treat as idempotent by
// payoutId. An answer that is not exactly one the protocol defines throws: the caller treats the
// payout as in doubt (rail.ts), never as failed or done.
// Submissions made at about the same time go to the partner together, in one batch call
// (POST /v1/payout-batches, protocol 1.2): one signature, one request and one write at the
// partner for up to PAYOUT_BATCH_SIZE_MAX payouts, each handled as if submitted alone. A partner
// that answers the batch route 404 or 405 (protocol 1.1) gets one call per payout for the next
// SINGLES_AFTER_NO_BATCH_MS, then the batch route is tried again; a batch refused as a whole (400,
// 413: nothing of it recorded) is sent again one payout per call, so that one payout the partner
// cannot take leaves only itself in doubt.
import { Agent } from 'undici';
import { Compile } from 'typebox/compile';
import {
  PAYOUT_BATCH_SIZE_MAX, PartnerCancelAnswer, PartnerNotFound, PartnerPayoutBatchAnswer, PartnerPayoutState, type PartnerPayoutBatch, type PartnerPayoutRequest,
} from '../../partners/protocol.ts';
import { createSignedCall, PartnerUnclearError, unclearAnswer, type PartnerAnswer, type SignedCallOptions } from '../../partners/signed-call.ts';
import { createBatcher } from '../../platform/batcher.ts';
import { formatMinor, parseAmount } from '../../platform/money.ts';
import type { CancelOutcome, PartnerStatus, PayoutForRail, PayoutRail, SubmitOutcome } from './rail.ts';

// the answers' schemas, compiled once (checking an answer with Value.Check cost about twenty times more)
const stateSchema = Compile(PartnerPayoutState);
const batchAnswerSchema = Compile(PartnerPayoutBatchAnswer);
const notFoundSchema = Compile(PartnerNotFound);
const cancelAnswerSchema = Compile(PartnerCancelAnswer);

/** How long a partner that answered the batch route as unknown is sent one payout per call. */
export const SINGLES_AFTER_NO_BATCH_MS = 10 * 60_000;

export interface HttpRailOptions extends SignedCallOptions {
  /**
   * How many submission calls to one partner may be under way at once (default 1: the next batch
   * gathers while one is under way; two at a time made smaller batches and fewer payouts per second).
   */
  batchesInFlightMax?: number;
}

/** One submission waiting for its batch: the payout and its caller's signal. */
interface Waiting {
  payout: PayoutForRail;
  signal: AbortSignal;
}
type Settled = { ok: true; state: PartnerPayoutState } | { ok: false; error: unknown };

export function createHttpRail(options: HttpRailOptions): PayoutRail {
  const call = createSignedCall(options);
  /** Until when the partner is sent one payout per call: it answered the batch route as unknown (protocol 1.1). */
  let singlesUntilMs = 0;

  function stateOf(payout: PayoutForRail, answer: PartnerAnswer, what: string): PartnerPayoutState {
    if (answer.statusCode !== 200 || !stateSchema.Check(answer.body)) throw unclearAnswer(what, answer);
    const state = answer.body as PartnerPayoutState;
    if (state.payoutId !== payout.payoutId) throw unclearAnswer(`${what} (another payoutId)`, answer);
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
  const requestOf = (payout: PayoutForRail): PartnerPayoutRequest => ({
    payoutId: payout.payoutId, payoutProviderId: payout.payoutProviderId, payoutMethod: payout.payoutMethod,
    destinationCcy: payout.destinationCcy, payoutAmt: amountText(payout), sender: payout.sender, beneficiary: payout.beneficiary,
  });

  async function submitOne(payout: PayoutForRail, signal: AbortSignal): Promise<PartnerPayoutState> {
    return stateOf(payout, await call('POST', '/v1/payouts', JSON.stringify(requestOf(payout)), signal), 'submit');
  }

  /**
   * One batch call for the payouts given (each once): a payout's state, or why there is none; or
   * ALONE when each must be sent in a call of its own instead (nothing of the batch was received).
   * An answer that does not give exactly one state for a payout leaves that payout unclear. The
   * call is bounded by the earliest of the callers' signals (they were made within moments of each other).
   */
  async function submitBatch(payouts: PayoutForRail[], signal: AbortSignal): Promise<Map<string, Settled> | 'ALONE'> {
    const batch: PartnerPayoutBatch = { payouts: payouts.map(requestOf) };
    const answer = await call('POST', '/v1/payout-batches', JSON.stringify(batch), signal);
    if (answer.statusCode === 404 || answer.statusCode === 405) {
      singlesUntilMs = Date.now() + SINGLES_AFTER_NO_BATCH_MS; // no batch route
      return 'ALONE';
    }
    // the partner refused the batch as a whole and recorded none of it: one payout it cannot take must
    // not hold up the others, so each goes alone (the refused one then stays in doubt on its own)
    if (answer.statusCode === 400 || answer.statusCode === 413) return 'ALONE';
    if (answer.statusCode !== 200 || !batchAnswerSchema.Check(answer.body)) throw unclearAnswer('batch submit', answer);
    const states = new Map<string, PartnerPayoutState[]>();
    for (const state of (answer.body as PartnerPayoutBatchAnswer).payouts) states.set(state.payoutId, [...(states.get(state.payoutId) ?? []), state]);
    return new Map(payouts.map((p) => {
      const found = states.get(p.payoutId);
      return [p.payoutId, found?.length === 1
        ? { ok: true, state: found[0]! }
        : { ok: false, error: unclearAnswer(`batch submit (${found ? 'several states' : 'no state'} for ${p.payoutId})`, answer) }];
    }));
  }

  const settle = async (fn: () => Promise<PartnerPayoutState>): Promise<Settled> => {
    try {
      return { ok: true, state: await fn() };
    } catch (error) {
      return { ok: false, error };
    }
  };

  /** Never throws: each waiting submission gets its own state or error (the batcher must not resend one by one). */
  async function runSubmissions(waiting: Waiting[]): Promise<Settled[]> {
    const live = waiting.filter((w) => !w.signal.aborted);
    const byId = new Map<string, PayoutForRail>();
    for (const w of live) byId.set(w.payout.payoutId, w.payout);
    /** Each payout in a call of its own, bounded by its own callers' signals. */
    const eachAlone = async () => new Map(await Promise.all([...byId.values()].map(async (p) => {
      const signal = AbortSignal.any(live.filter((w) => w.payout.payoutId === p.payoutId).map((w) => w.signal));
      return [p.payoutId, await settle(() => submitOne(p, signal))] as const;
    })));
    let results = new Map<string, Settled>();
    if (byId.size === 1 || Date.now() < singlesUntilMs) {
      results = await eachAlone();
    } else if (byId.size > 1) {
      try {
        const batch = await submitBatch([...byId.values()], AbortSignal.any(live.map((w) => w.signal)));
        results = batch === 'ALONE' ? await eachAlone() : batch;
      } catch (error) {
        results = new Map([...byId.keys()].map((id) => [id, { ok: false, error }]));
      }
    }
    return waiting.map((w) => (w.signal.aborted && !results.has(w.payout.payoutId)
      ? { ok: false, error: w.signal.reason as unknown }
      : results.get(w.payout.payoutId) ?? { ok: false, error: new PartnerUnclearError('submit: no answer') }));
  }

  const submissions = createBatcher<Waiting, Settled>({
    run: runSubmissions,
    batchSizeMax: PAYOUT_BATCH_SIZE_MAX,
    concurrencyMax: options.batchesInFlightMax ?? 1,
  });

  return {
    async submit(payout, signal): Promise<SubmitOutcome> {
      const settled = await submissions.submit({ payout, signal });
      if (!settled.ok) throw settled.error;
      const state = settled.state;
      switch (state.status) {
        case 'PAID': return { outcome: 'CONFIRMED', ...cashout(state) };
        case 'PENDING': return { outcome: 'PENDING', ...cashout(state) };
        case 'REJECTED':
        case 'FAILED': return { outcome: 'REJECTED', reason: state.reason ?? 'Rejected by the partner' };
        case 'CANCELLED': return { outcome: 'REJECTED', reason: 'Cancelled before it was received' };
        case 'RETURNED': throw new PartnerUnclearError('submit: RETURNED is no answer to a submission');
      }
    },

    async status(payout, signal): Promise<PartnerStatus> {
      const answer = await call('GET', path(payout), undefined, signal);
      if (answer.statusCode === 404) {
        if (notFoundSchema.Check(answer.body) && (answer.body as { payoutId: string }).payoutId === payout.payoutId) return { status: 'NOT_FOUND' };
        throw unclearAnswer('status', answer); // a 404 without the protocol's body may be a wrong base URL, not an unknown payout
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
      if (answer.statusCode !== 200 || !cancelAnswerSchema.Check(answer.body)) throw unclearAnswer('cancel', answer);
      const result = answer.body as PartnerCancelAnswer;
      if (result.payoutId !== payout.payoutId) throw unclearAnswer('cancel (another payoutId)', answer);
      if (result.outcome === 'CANCELLED') return { outcome: 'CANCELLED' };
      if (result.outcome === 'ALREADY_PAID') return { outcome: 'ALREADY_PAID', ...cashout(result) };
      if (result.status === undefined) throw unclearAnswer('cancel (ALREADY_FINAL without status)', answer);
      return { outcome: 'ALREADY_FINAL', status: result.status, ...(result.reason !== undefined ? { reason: result.reason } : {}) };
    },
  };
}

/** One connection pool for every partner, bounded per origin. */
export function createRailAgent(connectionsPerOriginMax = 16): Agent {
  return new Agent({ connections: connectionsPerOriginMax, keepAliveTimeout: 10_000 });
}
