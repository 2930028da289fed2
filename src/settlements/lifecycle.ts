// The settlement state machine of CONTRACT section 5, as a table. Every status change goes
// through findTransition; what is not in the table is refused.
import { findMove } from '../platform/state-machine.ts';

export const SETTLEMENT_STATUSES = [
  'S100_SCHEDULED', 'S200_RECEIVED', 'S300_IN_PROGRESS', 'S400_FIAT_WITHDRAWAL_IN_PROGRESS', 'S500_TERMINATED', 'S600_COMPLETED', 'S700_FAILED',
] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

export const UNFINISHED: readonly SettlementStatus[] = ['S100_SCHEDULED', 'S200_RECEIVED', 'S300_IN_PROGRESS', 'S400_FIAT_WITHDRAWAL_IN_PROGRESS'];

export type SettlementEvent =
  | 'DUE' // the scheduled time came (or the sandbox ran it now)
  | 'PROCESSING_STARTED' // the worker picked it up: buy, transfer on chain, swap
  | 'WITHDRAWAL_STARTED' // swapped; the fiat deposit to the destination member started
  | 'DEPOSIT_CONFIRMED' // the destination member confirmed the deposit
  | 'CANCELLED' // POST /v2/settlements/{id}/cancel
  | 'FAILED'; // a step failed for good

export interface Transition {
  from: SettlementStatus;
  event: SettlementEvent;
  to: SettlementStatus;
}

export const TRANSITIONS: readonly Transition[] = [
  { from: 'S100_SCHEDULED', event: 'DUE', to: 'S200_RECEIVED' },
  { from: 'S200_RECEIVED', event: 'PROCESSING_STARTED', to: 'S300_IN_PROGRESS' },
  { from: 'S300_IN_PROGRESS', event: 'WITHDRAWAL_STARTED', to: 'S400_FIAT_WITHDRAWAL_IN_PROGRESS' },
  { from: 'S400_FIAT_WITHDRAWAL_IN_PROGRESS', event: 'DEPOSIT_CONFIRMED', to: 'S600_COMPLETED' },
  { from: 'S100_SCHEDULED', event: 'CANCELLED', to: 'S500_TERMINATED' },
  ...UNFINISHED.map((from) => ({ from, event: 'FAILED' as const, to: 'S700_FAILED' as const })),
];

export function findTransition(from: SettlementStatus, event: SettlementEvent): Transition | undefined {
  return findMove(TRANSITIONS, from, event);
}
