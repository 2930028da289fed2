// The states of an outbound chain transfer and the moves between them, as a table. Every state
// change goes through repo.moveTransfer, which applies only a move listed here and only from the
// state the row is in (compare-and-set), so two processes never both make the same move.
import { findMove } from '../platform/state-machine.ts';

export const TRANSFER_STATES = ['PREPARED', 'SIGNED', 'BROADCAST', 'CONFIRMED', 'NOT_SENT', 'IN_DOUBT'] as const;
export type TransferState = (typeof TRANSFER_STATES)[number];

export type TransferEvent = 'SIGNED' | 'BROADCAST' | 'MINED' | 'REVERTED' | 'NONCE_TAKEN' | 'NONCE_TAKEN_UNSIGNED';

export const TRANSITIONS: ReadonlyArray<{ from: TransferState; event: TransferEvent; to: TransferState }> = [
  { from: 'PREPARED', event: 'SIGNED', to: 'SIGNED' },
  // the node answered "nonce too low" / "already known" for a SIGNED one: it is out there
  { from: 'SIGNED', event: 'BROADCAST', to: 'BROADCAST' },
  { from: 'SIGNED', event: 'MINED', to: 'CONFIRMED' },
  { from: 'BROADCAST', event: 'MINED', to: 'CONFIRMED' },
  { from: 'SIGNED', event: 'REVERTED', to: 'IN_DOUBT' },
  { from: 'BROADCAST', event: 'REVERTED', to: 'IN_DOUBT' },
  // the account's nonce passed ours and none of our recorded hashes has a receipt
  { from: 'SIGNED', event: 'NONCE_TAKEN', to: 'IN_DOUBT' },
  { from: 'BROADCAST', event: 'NONCE_TAKEN', to: 'IN_DOUBT' },
  // never signed, so never broadcast, and its nonce is used: it can never be mined
  { from: 'PREPARED', event: 'NONCE_TAKEN_UNSIGNED', to: 'NOT_SENT' },
];

/** The state an event moves a transfer to, or undefined when the table has no such move. */
export function transition(from: TransferState, event: TransferEvent): TransferState | undefined {
  return findMove(TRANSITIONS, from, event)?.to;
}

export const FINISHED_STATES: ReadonlySet<TransferState> = new Set(['CONFIRMED', 'NOT_SENT', 'IN_DOUBT']);
