// An endpoint's circuit: an endpoint that keeps failing (no answer in time, refused, or a non-2xx
// answer) is left alone for a while, so that its deliveries stop taking workers and attempts.
// The state lives on the endpoint row (migration 0017), so every process and the operator see the
// same one; the transitions on an attempt's result are written with the attempt (repo.recordAttempts).
//
//   from       event                                     to
//   CLOSED     success                                   CLOSED (failures back to 0)
//   CLOSED     failure, fewer than failuresMax in a row  CLOSED (failures + 1)
//   CLOSED     failure, failuresMax in a row             OPEN until now + openMs
//   OPEN       openMs passed                             HALF_OPEN
//   HALF_OPEN  one delivery claims the probe             HALF_OPEN (others put back)
//   HALF_OPEN  the probe succeeds                        CLOSED
//   HALF_OPEN  the probe fails                           OPEN until now + openMs
//
// A delivery that finds the circuit open (or the probe out) is put back without counting an
// attempt, so the contract's retry schedule counts only attempts actually sent.
export type CircuitState = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

export interface CircuitColumns {
  consecutiveFailures: number;
  circuitOpenUntil: Date | null;
  circuitProbeUntil: Date | null;
}

export interface CircuitSettings {
  /** Failed attempts in a row that open the circuit. */
  failuresMax: number;
  /** How long the circuit stays open before a probe. */
  openMs: number;
}

export function circuitState(c: CircuitColumns, now: Date): CircuitState {
  if (c.circuitOpenUntil === null) return 'CLOSED';
  return c.circuitOpenUntil.getTime() > now.getTime() ? 'OPEN' : 'HALF_OPEN';
}

/**
 * What a delivery may do: SEND (closed), CLAIM_PROBE (half open, no probe out: try to be it), or
 * WAIT until a time (open, or a probe is out).
 */
export type Admission = { kind: 'SEND' } | { kind: 'CLAIM_PROBE' } | { kind: 'WAIT'; untilMs: number };

export function admission(c: CircuitColumns, now: Date): Admission {
  const state = circuitState(c, now);
  if (state === 'CLOSED') return { kind: 'SEND' };
  if (state === 'OPEN') return { kind: 'WAIT', untilMs: c.circuitOpenUntil!.getTime() };
  if (c.circuitProbeUntil !== null && c.circuitProbeUntil.getTime() > now.getTime()) return { kind: 'WAIT', untilMs: c.circuitProbeUntil.getTime() };
  return { kind: 'CLAIM_PROBE' };
}

/** The operator's view of an endpoint's circuit. */
export function circuitView(c: CircuitColumns, now: Date): { state: CircuitState; consecutiveFailures: number; openUntil: Date | null } {
  return { state: circuitState(c, now), consecutiveFailures: c.consecutiveFailures, openUntil: c.circuitOpenUntil };
}
