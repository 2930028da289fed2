// The HTTP rail: a payout partner reached over the partner protocol (docs/partner-guide.md,
// partners/protocol.ts). Every call is signed with the service's key and bounded by the caller's
// AbortSignal. Calls are retried (a few times, within that signal) only where the protocol makes
// it safe: status reads, and submit and cancel, which the partner must treat as idempotent by
// payoutId. An answer that is not exactly one the protocol defines throws: the caller treats the
// payout as in doubt (rail.ts), never as failed or done.
import { Agent } from 'undici';
import { Value } from 'typebox/value';
import { PartnerCancelAnswer, PartnerNotFound, PartnerPayoutState, type PartnerPayoutRequest } from '../../partners/protocol.ts';
import { createSignedCall, unclearAnswer, type PartnerAnswer, type SignedCallOptions } from '../../partners/signed-call.ts';
import { formatMinor, parseAmount } from '../../platform/money.ts';
import type { CancelOutcome, PartnerStatus, PayoutForRail, PayoutRail, SubmitOutcome } from './rail.ts';

export type HttpRailOptions = SignedCallOptions;

export function createHttpRail(options: HttpRailOptions): PayoutRail {
  const call = createSignedCall(options);

  function stateOf(payout: PayoutForRail, answer: PartnerAnswer, what: string): PartnerPayoutState {
    if (answer.statusCode !== 200 || !Value.Check(PartnerPayoutState, answer.body)) throw unclearAnswer(what, answer);
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
        case 'RETURNED': throw unclearAnswer('submit (RETURNED is no answer to a submission)', answer);
      }
    },

    async status(payout, signal): Promise<PartnerStatus> {
      const answer = await call('GET', path(payout), undefined, signal);
      if (answer.statusCode === 404) {
        if (Value.Check(PartnerNotFound, answer.body) && (answer.body as { payoutId: string }).payoutId === payout.payoutId) return { status: 'NOT_FOUND' };
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
      if (answer.statusCode !== 200 || !Value.Check(PartnerCancelAnswer, answer.body)) throw unclearAnswer('cancel', answer);
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
