// Every (state, event) pair of the chain transfer lifecycle: the allowed moves and the refused ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TRANSFER_STATES, transition, type TransferEvent, type TransferState } from '../../src/chain/lifecycle.ts';

const EVENTS: TransferEvent[] = ['SIGNED', 'BROADCAST', 'MINED', 'REVERTED', 'NONCE_TAKEN', 'NONCE_TAKEN_UNSIGNED'];
const EXPECTED: Record<TransferState, Partial<Record<TransferEvent, TransferState>>> = {
  PREPARED: { SIGNED: 'SIGNED', NONCE_TAKEN_UNSIGNED: 'NOT_SENT' },
  SIGNED: { BROADCAST: 'BROADCAST', MINED: 'CONFIRMED', REVERTED: 'IN_DOUBT', NONCE_TAKEN: 'IN_DOUBT' },
  BROADCAST: { MINED: 'CONFIRMED', REVERTED: 'IN_DOUBT', NONCE_TAKEN: 'IN_DOUBT' },
  CONFIRMED: {},
  NOT_SENT: {},
  IN_DOUBT: {},
};

for (const state of TRANSFER_STATES) {
  for (const event of EVENTS) {
    const to = EXPECTED[state][event];
    test(`${state} on ${event}: ${to ?? 'refused'}`, () => {
      assert.equal(transition(state, event), to);
    });
  }
}

test('a transfer that has signed bytes can never become NOT_SENT, nor a PREPARED one CONFIRMED without its bytes', () => {
  for (const event of EVENTS) {
    assert.notEqual(transition('SIGNED', event), 'NOT_SENT');
    assert.notEqual(transition('BROADCAST', event), 'NOT_SENT');
    assert.notEqual(transition('PREPARED', event), 'CONFIRMED');
  }
});
