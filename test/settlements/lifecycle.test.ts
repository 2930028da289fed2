// The settlement state machine: every (status, event) pair applied through apply.ts to a real
// settlement in that status: the allowed ones move it and write its event, the rest are refused
// and change nothing. The table itself is checked against the contract's section 5.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { token } from '../support/http.ts';
import { settlementApi, settlementControls } from '../support/settlements.ts';
import { withTransaction } from '../../src/platform/database/transaction.ts';
import { applyEvent } from '../../src/settlements/apply.ts';
import { lockSettlement } from '../../src/settlements/repo.ts';
import { SETTLEMENT_STATUSES, TRANSITIONS, type SettlementEvent, type SettlementStatus } from '../../src/settlements/lifecycle.ts';

let service: TestService;
let api: ReturnType<typeof settlementApi>;
let controls: ReturnType<typeof settlementControls>;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  const auth = await token(service.url, { scope: 'settlements' });
  api = settlementApi(service.url, auth);
  controls = settlementControls(service.url, auth);
});
after(async () => {
  await service.stop();
});

const EVENTS: SettlementEvent[] = ['DUE', 'PROCESSING_STARTED', 'WITHDRAWAL_STARTED', 'DEPOSIT_CONFIRMED', 'CANCELLED', 'FAILED'];

/** CONTRACT section 5, as status -> event -> status; every pair not listed is refused. */
const EXPECTED: Record<SettlementStatus, Partial<Record<SettlementEvent, SettlementStatus>>> = {
  S100_SCHEDULED: { DUE: 'S200_RECEIVED', CANCELLED: 'S500_TERMINATED', FAILED: 'S700_FAILED' },
  S200_RECEIVED: { PROCESSING_STARTED: 'S300_IN_PROGRESS', FAILED: 'S700_FAILED' },
  S300_IN_PROGRESS: { WITHDRAWAL_STARTED: 'S400_FIAT_WITHDRAWAL_IN_PROGRESS', FAILED: 'S700_FAILED' },
  S400_FIAT_WITHDRAWAL_IN_PROGRESS: { DEPOSIT_CONFIRMED: 'S600_COMPLETED', FAILED: 'S700_FAILED' },
  S500_TERMINATED: {},
  S600_COMPLETED: {},
  S700_FAILED: {},
};

/** A real settlement in the status, brought there through the API and the sandbox controls. */
async function settlementIn(status: SettlementStatus): Promise<string> {
  const scheduled = status === 'S100_SCHEDULED' || status === 'S500_TERMINATED';
  const id = String((await api.settle('PARTNER_MX', scheduled ? { executionInterval: 'ONE_HOUR' } : {}))['settlementId']);
  if (status === 'S500_TERMINATED') {
    const response = await fetch(`${service.url}/v2/settlements/${id}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${await token(service.url, { scope: 'settlements' })}` } });
    assert.equal(response.status, 202);
  }
  if (status === 'S700_FAILED') await controls.advance(id, { fail: true });
  if (status === 'S300_IN_PROGRESS' || status === 'S400_FIAT_WITHDRAWAL_IN_PROGRESS' || status === 'S600_COMPLETED') await controls.advanceTo(id, status);
  return id;
}

class Rollback extends Error {}

/** What the pipeline writes with an event (a completion has its amount and time). */
const CHANGES: Partial<Record<SettlementEvent, object>> = {
  DEPOSIT_CONFIRMED: { settlementAmtReceived: '1.00', pendingAmt: '0', completionTime: new Date() },
  FAILED: { failureReason: 'matrix', pendingAmt: '0' },
};

/** Applies the event in a transaction that is rolled back: the status it moved to, or the refusal. */
async function attempt(id: string, event: SettlementEvent): Promise<string> {
  let outcome = '';
  await assert.rejects(withTransaction(service.db, async (client) => {
    const locked = (await lockSettlement(client, id))!;
    try {
      const moved = await applyEvent(client, locked, event, CHANGES[event] ?? {});
      const { rows } = await client.query(
        `SELECT data->>'settlementStatus' AS status, data->>'previousStatus' AS previous FROM events WHERE resource_id = $1 AND sequence = $2`, [id, moved.eventSequence]);
      assert.deepEqual(rows, [{ status: moved.settlementStatus, previous: locked.settlementStatus }], 'the move writes its event');
      const stored = await client.query('SELECT settlement_status AS s FROM settlements WHERE settlement_id = $1', [id]);
      assert.equal(stored.rows[0].s, moved.settlementStatus);
      outcome = moved.settlementStatus;
    } catch (error) {
      if (!(error instanceof Error) || !/is not allowed from/.test(error.message)) throw error;
      outcome = 'refused';
    }
    throw new Rollback();
  }), Rollback);
  return outcome;
}

describe('every status x every event', () => {
  test('the table is the contract\'s', () => {
    const table = Object.fromEntries(SETTLEMENT_STATUSES.map((s) => [s, Object.fromEntries(TRANSITIONS.filter((t) => t.from === s).map((t) => [t.event, t.to]))]));
    assert.deepEqual(table, EXPECTED);
  });

  for (const status of SETTLEMENT_STATUSES) {
    test(`${status}: ${EVENTS.map((e) => `${e} -> ${EXPECTED[status][e] ?? 'refused'}`).join(', ')}`, async () => {
      const id = await settlementIn(status);
      for (const event of EVENTS) {
        assert.equal(await attempt(id, event), EXPECTED[status][event] ?? 'refused', `${status} on ${event}`);
      }
      const { rows } = await service.db.query('SELECT settlement_status AS s FROM settlements WHERE settlement_id = $1', [id]);
      assert.equal(rows[0].s, status, 'nothing stays changed');
    });
  }
});
