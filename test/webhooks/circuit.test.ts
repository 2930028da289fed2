// The circuit's admission of a delivery, state by state: what the columns on the endpoint row
// (written with the attempts, see fairness.test.ts for the transitions end to end) let it do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admission, circuitState, type CircuitColumns } from '../../src/webhooks/circuit.ts';

const NOW = new Date('2026-01-01T12:00:00Z');
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);
const columns = (c: Partial<CircuitColumns>): CircuitColumns => ({ consecutiveFailures: 0, circuitOpenUntil: null, circuitProbeUntil: null, ...c });

test('closed: the delivery is sent, whatever the failures so far', () => {
  assert.equal(circuitState(columns({ consecutiveFailures: 4 }), NOW), 'CLOSED');
  assert.deepEqual(admission(columns({ consecutiveFailures: 4 }), NOW), { kind: 'SEND' });
});

test('open: the delivery waits until the circuit half-opens', () => {
  const open = columns({ consecutiveFailures: 5, circuitOpenUntil: at(30_000) });
  assert.equal(circuitState(open, NOW), 'OPEN');
  assert.deepEqual(admission(open, NOW), { kind: 'WAIT', untilMs: at(30_000).getTime() });
});

test('half open, no probe out: the delivery tries to claim the probe', () => {
  const halfOpen = columns({ consecutiveFailures: 5, circuitOpenUntil: at(-1) });
  assert.equal(circuitState(halfOpen, NOW), 'HALF_OPEN');
  assert.deepEqual(admission(halfOpen, NOW), { kind: 'CLAIM_PROBE' });
  // a probe whose time ran out (its process died, or its answer was never recorded) is claimed again
  assert.deepEqual(admission({ ...halfOpen, circuitProbeUntil: at(-1) }, NOW), { kind: 'CLAIM_PROBE' });
});

test('half open, a probe out: the delivery waits for the probe', () => {
  const probing = columns({ consecutiveFailures: 5, circuitOpenUntil: at(-5000), circuitProbeUntil: at(8000) });
  assert.equal(circuitState(probing, NOW), 'HALF_OPEN');
  assert.deepEqual(admission(probing, NOW), { kind: 'WAIT', untilMs: at(8000).getTime() });
});
