// The payout state machine of CONTRACT section 5, as tables. Every state change in the payout
// area goes through apply.ts (applyToLocked, or applyAnswers in submission.ts for batches), which
// checks the move here on a locked row and writes the new state, the ledger movement and the event together.
import { findMove } from '../platform/state-machine.ts';

export const PAYOUT_STATUSES = ['RCVD', 'ACCP', 'PNDG', 'PRCD', 'RJCT', 'CNCL', 'EXPD', 'FAIL', 'RVSD'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];
export const CANCELLATION_STATUSES = ['ACCP', 'PNDG', 'PRCD', 'RJCT'] as const;
export type CancellationStatus = (typeof CANCELLATION_STATUSES)[number];

export type PayoutEvent =
  | 'SUBMIT_CONFIRMED' // the partner confirmed the submission at once
  | 'SUBMIT_PENDING' // the partner took it but has not paid yet (or did not answer in time)
  | 'PARTNER_CONFIRMED' // a pending payout is paid (cash picked up)
  | 'PARTNER_REJECTED'
  | 'PARTNER_FAILED'
  | 'PARTNER_RETURNED' // a paid payout's funds came back
  | 'EXPIRED'
  | 'CANCELLED'
  | 'FOUND_PAID'; // an operator established that a payout whose reservation was released was paid after all

/**
 * What the move does to the reservation of payoutAmt + transferFee. CHARGE takes amount and fee
 * from the prefund again (posted at once) when the reservation was released and the money moved
 * anyway; it is refused while the prefund cannot cover it (credit the prefund first).
 */
export type LedgerEffect = 'NONE' | 'POST' | 'VOID' | 'REVERSE' | 'CHARGE';

export interface Transition {
  from: PayoutStatus;
  event: PayoutEvent;
  to: PayoutStatus;
  ledger: LedgerEffect;
}

export const PAYOUT_TRANSITIONS: readonly Transition[] = [
  { from: 'ACCP', event: 'SUBMIT_CONFIRMED', to: 'PRCD', ledger: 'POST' },
  { from: 'ACCP', event: 'SUBMIT_PENDING', to: 'PNDG', ledger: 'NONE' },
  { from: 'ACCP', event: 'PARTNER_REJECTED', to: 'RJCT', ledger: 'VOID' },
  { from: 'ACCP', event: 'PARTNER_FAILED', to: 'FAIL', ledger: 'VOID' },
  { from: 'ACCP', event: 'EXPIRED', to: 'EXPD', ledger: 'VOID' },
  { from: 'ACCP', event: 'CANCELLED', to: 'CNCL', ledger: 'VOID' },
  { from: 'PNDG', event: 'PARTNER_CONFIRMED', to: 'PRCD', ledger: 'POST' },
  { from: 'PNDG', event: 'PARTNER_REJECTED', to: 'RJCT', ledger: 'VOID' },
  { from: 'PNDG', event: 'PARTNER_FAILED', to: 'FAIL', ledger: 'VOID' },
  { from: 'PNDG', event: 'CANCELLED', to: 'CNCL', ledger: 'VOID' },
  { from: 'PRCD', event: 'PARTNER_RETURNED', to: 'RVSD', ledger: 'REVERSE' },
  // corrections after an operator's review (npm run admin -- payouts resolve)
  { from: 'RJCT', event: 'FOUND_PAID', to: 'PRCD', ledger: 'CHARGE' },
  { from: 'FAIL', event: 'FOUND_PAID', to: 'PRCD', ledger: 'CHARGE' },
  { from: 'CNCL', event: 'FOUND_PAID', to: 'PRCD', ledger: 'CHARGE' },
  { from: 'EXPD', event: 'FOUND_PAID', to: 'PRCD', ledger: 'CHARGE' },
];

export function findTransition(from: PayoutStatus, event: PayoutEvent): Transition | undefined {
  return findMove(PAYOUT_TRANSITIONS, from, event);
}

export const FINAL_STATUSES: readonly PayoutStatus[] = ['PRCD', 'RJCT', 'CNCL', 'EXPD', 'FAIL', 'RVSD'];

/** Which payout states accept which operation (the rest answer 409 INVALID_STATE). */
export const PROCESS_SUBMITS: readonly PayoutStatus[] = ['ACCP'];
/** process on these answers the current state (idempotent). */
export const PROCESS_ANSWERS: readonly PayoutStatus[] = ['PNDG', 'PRCD'];
export const CANCELLABLE: readonly PayoutStatus[] = ['ACCP', 'PNDG'];

export type CancellationEvent = 'REQUESTED' | 'DONE' | 'REFUSED';

export const CANCELLATION_TRANSITIONS: ReadonlyArray<{ from: CancellationStatus | null; event: CancellationEvent; to: CancellationStatus }> = [
  { from: null, event: 'REQUESTED', to: 'PNDG' },
  { from: 'PNDG', event: 'DONE', to: 'PRCD' },
  { from: 'PNDG', event: 'REFUSED', to: 'RJCT' },
];

export function findCancellationTransition(from: CancellationStatus | null, event: CancellationEvent) {
  return findMove(CANCELLATION_TRANSITIONS, from, event);
}

/**
 * Where a payout stands with its partner. NONE: never sent. SUBMITTING: the intent to send is
 * recorded and the call may be under way. SUBMITTED: the partner answered and the answer is
 * applied. IN_DOUBT: a call came back without a clear answer, or a recorded submission was never
 * answered: the partner may or may not hold the payout, so nothing is resent, cancelled or
 * released before the partner has been asked by the payout id (doubt.ts).
 */
export const SUBMISSION_STATES = ['NONE', 'SUBMITTING', 'SUBMITTED', 'IN_DOUBT'] as const;
export type SubmissionState = (typeof SUBMISSION_STATES)[number];

export type SubmissionEvent =
  | 'CLAIMED' // process recorded the intent to send
  | 'RELEASED' // no rail to send with: nothing was sent
  | 'ANSWERED' // a clear answer from the partner, applied
  | 'UNCLEAR' // a timeout, a dropped connection, a 5xx, or a recorded submission never answered
  | 'NOT_RECEIVED' // asked, the partner says it never received the id: sent again
  | 'KNOWN'; // asked, or told by a report, the partner says what became of it

export const SUBMISSION_TRANSITIONS: ReadonlyArray<{ from: SubmissionState; event: SubmissionEvent; to: SubmissionState }> = [
  { from: 'NONE', event: 'CLAIMED', to: 'SUBMITTING' },
  { from: 'SUBMITTING', event: 'RELEASED', to: 'NONE' },
  { from: 'SUBMITTING', event: 'ANSWERED', to: 'SUBMITTED' },
  { from: 'SUBMITTING', event: 'UNCLEAR', to: 'IN_DOUBT' },
  { from: 'IN_DOUBT', event: 'NOT_RECEIVED', to: 'SUBMITTING' },
  { from: 'IN_DOUBT', event: 'KNOWN', to: 'SUBMITTED' },
  { from: 'IN_DOUBT', event: 'ANSWERED', to: 'SUBMITTED' },
];

export function findSubmissionTransition(from: SubmissionState, event: SubmissionEvent) {
  return findMove(SUBMISSION_TRANSITIONS, from, event);
}
