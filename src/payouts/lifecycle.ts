// The payout state machine of CONTRACT section 5, as tables. Every state change in the payout
// area goes through apply.ts (applyToLocked, or applyAnswers in submission.ts for batches), which
// checks the move here on a locked row and writes the new state, the ledger movement and the event together.
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
  | 'CANCELLED';

/** What the move does to the reservation of payoutAmt + transferFee. */
export type LedgerEffect = 'NONE' | 'POST' | 'VOID' | 'REVERSE';

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
];

export function findTransition(from: PayoutStatus, event: PayoutEvent): Transition | undefined {
  return PAYOUT_TRANSITIONS.find((t) => t.from === from && t.event === event);
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
  return CANCELLATION_TRANSITIONS.find((t) => t.from === from && t.event === event);
}
