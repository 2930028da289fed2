// In doubt is not an answer: for each venue step, what follows a call that times out (before or
// after acting), a refusal, and a lookup by reference that finds, does not find, or cannot answer.
// The venues are the sandbox's own code with faults asked of them in the database
// (sandbox_venue_faults); no worker runs, the jobs are called as the worker would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { token } from '../support/http.ts';
import { queuedJob, settlementApi, settlementControls, settlementState, settlementTransfers } from '../support/settlements.ts';
import { createPipeline, type Pipeline } from '../../src/settlements/pipeline.ts';
import { createSandboxVenues } from '../../src/settlements/sandbox-venues.ts';
import { injectFault, type VenueFault, type VenueOperation } from '../../src/settlements/sandbox-venue-repo.ts';
import { DOUBT_CHECK_DELAYS_MS } from '../../src/settlements/doubt.ts';
import { TRANSFER_FINAL_WAIT_MAX_MS } from '../../src/settlements/steps.ts';
import { checkLedgerFully, differenceCount } from '../../src/ledger/check.ts';

let service: TestService;
let api: ReturnType<typeof settlementApi>;
let controls: ReturnType<typeof settlementControls>;
let pipeline: Pipeline;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  const auth = await token(service.url, { scope: 'settlements' });
  api = settlementApi(service.url, auth);
  controls = settlementControls(service.url, auth);
  pipeline = createPipeline({ db: service.db, clock: { now: () => new Date() }, venues: createSandboxVenues(service.db) });
});
after(async () => {
  const report = await checkLedgerFully(service.db);
  assert.equal(differenceCount(report), 0, JSON.stringify(report.settlements.items));
  await service.stop();
});

const LAST_CHECK = DOUBT_CHECK_DELAYS_MS.length - 1;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fault = (id: string, step: string, operation: VenueOperation, kind: VenueFault, times = 1) =>
  injectFault(service.db, `${id}:${step}`, operation, kind, times);
const state = (id: string) => settlementState(service.db, id);
const legs = async (id: string) => (await settlementTransfers(service.db, id)).map((t) => `${t.reason} ${t.debit}->${t.credit}`);
const refunded = async (id: string) => (await legs(id)).some((l) => l.startsWith('SETTLEMENT_REFUND'));
const venueOperations = async (id: string) =>
  (await service.db.query(`SELECT reference FROM sandbox_venue_operations WHERE reference LIKE $1 ORDER BY created_at`, [`${id}:%`])).rows.map((r) => String(r.reference).split(':')[1]);

/** A settlement waiting for the step: BUY (S200), TRANSFER (S300), SWAP (S300, transfer final), WITHDRAWAL (S400). */
async function waitingFor(step: 'BUY' | 'TRANSFER' | 'SWAP' | 'WITHDRAWAL'): Promise<string> {
  const id = String((await api.settle('PARTNER_MX', { settlementAmt: 321.09 }))['settlementId']);
  if (step === 'TRANSFER') await controls.advance(id);
  if (step === 'SWAP') {
    await controls.advance(id);
    await pipeline.steps.transfer(id);
    for (let i = 0; i < 30 && (await queuedJob(service.db, id))?.task !== 'settlement.swap'; i += 1) {
      await sleep(150);
      await pipeline.steps.transfer(id);
    }
    assert.equal((await queuedJob(service.db, id))?.task, 'settlement.swap');
  }
  if (step === 'WITHDRAWAL') await controls.advanceTo(id, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS');
  return id;
}

/** After a call without a clear answer: the settlement stays, the doubt job is queued for the step's first question. */
async function expectDoubtQueued(id: string, status: string, step: string, check = 0): Promise<void> {
  assert.deepEqual(await state(id), { status, failureReason: null, step: null, reason: null });
  assert.deepEqual(await queuedJob(service.db, id), { task: 'settlement.resolve_doubt', payload: { settlementId: id, step, check } });
}

describe('buy', () => {
  test('times out after the order executed: asked by reference, found, recorded: S300 with the treasury holding the stablecoin', async () => {
    const id = await waitingFor('BUY');
    await fault(id, 'BUY', 'buy', 'TIMEOUT_AFTER');
    await pipeline.steps.buy(id);
    await expectDoubtQueued(id, 'S200_RECEIVED', 'BUY');
    const { rows } = await service.db.query(`SELECT step, result->>'reference' AS reference FROM settlement_steps WHERE settlement_id = $1`, [id]);
    assert.deepEqual(rows, [{ step: 'BUY_REQUESTED', reference: `${id}:BUY` }], 'the intent was recorded before the call');
    await pipeline.resolveDoubt(id, 'BUY', 0);
    assert.equal((await state(id)).status, 'S300_IN_PROGRESS');
    assert.deepEqual(await legs(id), ['SETTLEMENT_BUY LIQUIDITY->TREASURY', 'SETTLEMENT_IN SOURCE_FUNDS->LIQUIDITY']);
    assert.deepEqual(await venueOperations(id), ['BUY'], 'one order');
  });

  test('times out before acting: not found, so the buy runs again with the same reference; one order', async () => {
    const id = await waitingFor('BUY');
    await fault(id, 'BUY', 'buy', 'TIMEOUT');
    await pipeline.steps.buy(id);
    await pipeline.resolveDoubt(id, 'BUY', 0);
    assert.deepEqual(await queuedJob(service.db, id), { task: 'settlement.buy', payload: { settlementId: id, check: 1 } });
    await pipeline.steps.buy(id, false, 1);
    assert.equal((await state(id)).status, 'S300_IN_PROGRESS');
    assert.deepEqual(await venueOperations(id), ['BUY']);
  });

  test('the lookup keeps failing: asked on the schedule, then parked in S200 with nothing returned (the order may have executed)', async () => {
    const id = await waitingFor('BUY');
    await fault(id, 'BUY', 'buy', 'TIMEOUT');
    await fault(id, 'BUY', 'findBuy', 'TIMEOUT', DOUBT_CHECK_DELAYS_MS.length);
    await pipeline.steps.buy(id);
    await pipeline.resolveDoubt(id, 'BUY', 0);
    await expectDoubtQueued(id, 'S200_RECEIVED', 'BUY', 1);
    await pipeline.resolveDoubt(id, 'BUY', LAST_CHECK);
    assert.deepEqual(await state(id), { status: 'S200_RECEIVED', failureReason: null, step: 'BUY', reason: 'VENUE_UNANSWERED' });
    assert.deepEqual(await legs(id), []);
    const { rows } = await service.db.query(`SELECT type, data->>'reviewReason' AS reason FROM events WHERE resource_id = $1 ORDER BY sequence DESC LIMIT 1`, [id]);
    assert.deepEqual(rows[0], { type: 'settlement.review_opened', reason: 'VENUE_UNANSWERED' });
    await pipeline.steps.buy(id);
    assert.deepEqual(await venueOperations(id), [], 'a parked settlement is not worked on');
  });

  test('refused by the exchange: S700, nothing was taken in, nothing to return', async () => {
    const id = await waitingFor('BUY');
    await fault(id, 'BUY', 'buy', 'REFUSE');
    await pipeline.steps.buy(id);
    assert.deepEqual(await state(id), { status: 'S700_FAILED', failureReason: `buy: sandbox venue refused buy ${id}:BUY`, step: null, reason: null });
    assert.deepEqual(await legs(id), []);
  });

  test('a destination member without a wallet address: S700 at the buy, before anything moves', async () => {
    await service.db.query(`UPDATE members SET wallet_address = NULL WHERE member_id = 'PARTNER_BR'`);
    try {
      const id = String((await api.settle('PARTNER_BR', { settlementAmt: 10 }))['settlementId']);
      await pipeline.steps.buy(id);
      assert.deepEqual(await state(id), {
        status: 'S700_FAILED', failureReason: 'buy: the destination member PARTNER_BR has no wallet address to receive the stablecoin', step: null, reason: null,
      });
      assert.deepEqual(await venueOperations(id), [], 'no venue was asked');
      assert.deepEqual(await legs(id), []);
    } finally {
      await service.db.query(`UPDATE members SET wallet_address = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' WHERE member_id = 'PARTNER_BR'`);
    }
  });
});

describe('transfer', () => {
  test('send times out, the rail knows nothing of it (UNKNOWN): sent again with the same reference; in transit', async () => {
    const id = await waitingFor('TRANSFER');
    await fault(id, 'TRANSFER', 'send', 'TIMEOUT');
    await pipeline.steps.transfer(id);
    await expectDoubtQueued(id, 'S300_IN_PROGRESS', 'TRANSFER');
    await pipeline.resolveDoubt(id, 'TRANSFER', 0);
    assert.equal((await queuedJob(service.db, id))?.task, 'settlement.transfer');
    await pipeline.steps.transfer(id, false, 2);
    assert.deepEqual((await legs(id)).at(-1), 'SETTLEMENT_SENT TREASURY->IN_TRANSIT');
    assert.deepEqual(await venueOperations(id), ['BUY', 'TRANSFER']);
  });

  test('send times out after broadcasting and the transfer is final when asked: sent and delivered at once, the swap queued', async () => {
    const id = await waitingFor('TRANSFER');
    await fault(id, 'TRANSFER', 'send', 'TIMEOUT_AFTER');
    await pipeline.steps.transfer(id);
    await expectDoubtQueued(id, 'S300_IN_PROGRESS', 'TRANSFER');
    await sleep(1000); // the sandbox chain's confirmations
    await pipeline.resolveDoubt(id, 'TRANSFER', 0);
    assert.deepEqual((await legs(id)).slice(2), ['SETTLEMENT_DELIVERED IN_TRANSIT->LIQUIDITY', 'SETTLEMENT_SENT TREASURY->IN_TRANSIT']);
    assert.equal((await queuedJob(service.db, id))?.task, 'settlement.swap');
  });

  test('the chain answers IN_DOUBT: asked on the schedule, then parked; nothing returned', async () => {
    const id = await waitingFor('TRANSFER');
    await fault(id, 'TRANSFER', 'send', 'IN_DOUBT');
    await fault(id, 'TRANSFER', 'status', 'IN_DOUBT', DOUBT_CHECK_DELAYS_MS.length);
    await pipeline.steps.transfer(id);
    await expectDoubtQueued(id, 'S300_IN_PROGRESS', 'TRANSFER');
    await pipeline.resolveDoubt(id, 'TRANSFER', LAST_CHECK);
    assert.deepEqual(await state(id), { status: 'S300_IN_PROGRESS', failureReason: null, step: 'TRANSFER', reason: 'CHAIN_IN_DOUBT' });
    assert.equal(await refunded(id), false);
  });

  test('broadcast, then the status cannot be had: parked after the last question, the stablecoin shown in transit', async () => {
    const id = await waitingFor('TRANSFER');
    await pipeline.steps.transfer(id);
    await fault(id, 'TRANSFER', 'status', 'TIMEOUT', 2);
    await pipeline.steps.transfer(id);
    await expectDoubtQueued(id, 'S300_IN_PROGRESS', 'TRANSFER');
    await pipeline.resolveDoubt(id, 'TRANSFER', LAST_CHECK);
    assert.deepEqual(await state(id), { status: 'S300_IN_PROGRESS', failureReason: null, step: 'TRANSFER', reason: 'VENUE_UNANSWERED' });
    assert.deepEqual(await legs(id), ['SETTLEMENT_BUY LIQUIDITY->TREASURY', 'SETTLEMENT_IN SOURCE_FUNDS->LIQUIDITY', 'SETTLEMENT_SENT TREASURY->IN_TRANSIT']);
  });

  test('broadcast and still not final after the longest wait: parked (CHAIN_IN_DOUBT), the stablecoin shown in transit', async () => {
    const id = await waitingFor('TRANSFER');
    await pipeline.steps.transfer(id);
    const later = createPipeline({ db: service.db, clock: { now: () => new Date(Date.now() + TRANSFER_FINAL_WAIT_MAX_MS + 60_000) }, venues: createSandboxVenues(service.db) });
    await later.steps.transfer(id);
    assert.deepEqual(await state(id), { status: 'S300_IN_PROGRESS', failureReason: null, step: 'TRANSFER', reason: 'CHAIN_IN_DOUBT' });
    assert.equal((await legs(id)).at(-1), 'SETTLEMENT_SENT TREASURY->IN_TRANSIT');
  });

  test('NOT_SENT before broadcast (proven nothing moved): S700, funds returned, the stablecoin back from the treasury', async () => {
    const id = await waitingFor('TRANSFER');
    await fault(id, 'TRANSFER', 'send', 'NOT_SENT');
    await pipeline.steps.transfer(id);
    assert.equal((await state(id)).status, 'S700_FAILED');
    assert.deepEqual((await legs(id)).slice(2), ['SETTLEMENT_REFUND LIQUIDITY->SOURCE_FUNDS', 'SETTLEMENT_UNWIND TREASURY->LIQUIDITY']);
  });

  test('send refused and the rail holds nothing under the reference: S700, funds returned; refused but the status cannot be had: asked later', async () => {
    const id = await waitingFor('TRANSFER');
    await fault(id, 'TRANSFER', 'send', 'REFUSE');
    await pipeline.steps.transfer(id);
    assert.deepEqual(await state(id), { status: 'S700_FAILED', failureReason: `transfer: sandbox chain refused send ${id}:TRANSFER`, step: null, reason: null });
    assert.deepEqual((await legs(id)).slice(2), ['SETTLEMENT_REFUND LIQUIDITY->SOURCE_FUNDS', 'SETTLEMENT_UNWIND TREASURY->LIQUIDITY']);

    const unclear = await waitingFor('TRANSFER');
    await fault(unclear, 'TRANSFER', 'send', 'REFUSE');
    await fault(unclear, 'TRANSFER', 'status', 'TIMEOUT');
    await pipeline.steps.transfer(unclear);
    await expectDoubtQueued(unclear, 'S300_IN_PROGRESS', 'TRANSFER');
  });

  test('NOT_SENT after broadcast (the nonce went to another recorded transaction): S700, the stablecoin back from transit', async () => {
    const id = await waitingFor('TRANSFER');
    await pipeline.steps.transfer(id);
    await fault(id, 'TRANSFER', 'status', 'NOT_SENT');
    await pipeline.steps.transfer(id);
    assert.equal((await state(id)).status, 'S700_FAILED');
    assert.deepEqual((await legs(id)).slice(3), ['SETTLEMENT_REFUND LIQUIDITY->SOURCE_FUNDS', 'SETTLEMENT_UNWIND IN_TRANSIT->LIQUIDITY']);
  });
});

describe('swap (the stablecoin is at the destination: nothing is returned automatically)', () => {
  test('times out after swapping: found by reference, recorded: S400', async () => {
    const id = await waitingFor('SWAP');
    await fault(id, 'SWAP', 'swap', 'TIMEOUT_AFTER');
    await pipeline.steps.swap(id);
    await expectDoubtQueued(id, 'S300_IN_PROGRESS', 'SWAP');
    await pipeline.resolveDoubt(id, 'SWAP', 0);
    assert.equal((await state(id)).status, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS');
  });

  test('refused: parked (FAILED_AFTER_MONEY_LEFT), not failed, nothing returned', async () => {
    const id = await waitingFor('SWAP');
    await fault(id, 'SWAP', 'swap', 'REFUSE');
    await pipeline.steps.swap(id);
    assert.deepEqual(await state(id), { status: 'S300_IN_PROGRESS', failureReason: null, step: 'SWAP', reason: 'FAILED_AFTER_MONEY_LEFT' });
    assert.equal(await refunded(id), false);
  });

  test('the lookup keeps failing: parked after the last question', async () => {
    const id = await waitingFor('SWAP');
    await fault(id, 'SWAP', 'swap', 'TIMEOUT');
    await fault(id, 'SWAP', 'findSwap', 'TIMEOUT');
    await pipeline.steps.swap(id);
    await pipeline.resolveDoubt(id, 'SWAP', LAST_CHECK);
    assert.deepEqual(await state(id), { status: 'S300_IN_PROGRESS', failureReason: null, step: 'SWAP', reason: 'VENUE_UNANSWERED' });
    assert.equal(await refunded(id), false);
  });
});

describe('withdrawal (the deposit with the destination member)', () => {
  test('times out before the bank acted: not found, requested again with the same reference; one deposit', async () => {
    const id = await waitingFor('WITHDRAWAL');
    await fault(id, 'WITHDRAWAL', 'deposit', 'TIMEOUT');
    await pipeline.steps.withdraw(id);
    await expectDoubtQueued(id, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS', 'WITHDRAWAL');
    await pipeline.resolveDoubt(id, 'WITHDRAWAL', 0);
    assert.deepEqual(await queuedJob(service.db, id), { task: 'settlement.withdraw', payload: { settlementId: id, check: 1 } });
    await pipeline.steps.withdraw(id, false, 1);
    const { rows } = await service.db.query(`SELECT step FROM settlement_steps WHERE settlement_id = $1 AND step = 'WITHDRAWAL'`, [id]);
    assert.equal(rows.length, 1);
    assert.deepEqual(await venueOperations(id), ['BUY', 'TRANSFER', 'SWAP', 'WITHDRAWAL']);
  });

  test('times out after the bank acted and the lookup cannot answer: parked in S400, nothing returned', async () => {
    const id = await waitingFor('WITHDRAWAL');
    await fault(id, 'WITHDRAWAL', 'deposit', 'TIMEOUT_AFTER');
    await fault(id, 'WITHDRAWAL', 'findDeposit', 'TIMEOUT');
    await pipeline.steps.withdraw(id);
    await pipeline.resolveDoubt(id, 'WITHDRAWAL', LAST_CHECK);
    assert.deepEqual(await state(id), { status: 'S400_FIAT_WITHDRAWAL_IN_PROGRESS', failureReason: null, step: 'WITHDRAWAL', reason: 'VENUE_UNANSWERED' });
    assert.equal(await refunded(id), false);
  });

  test('refused by the bank: parked, not failed; nothing returned', async () => {
    const id = await waitingFor('WITHDRAWAL');
    await fault(id, 'WITHDRAWAL', 'deposit', 'REFUSE');
    await pipeline.steps.withdraw(id);
    assert.deepEqual(await state(id), { status: 'S400_FIAT_WITHDRAWAL_IN_PROGRESS', failureReason: null, step: 'WITHDRAWAL', reason: 'FAILED_AFTER_MONEY_LEFT' });
    assert.equal(await refunded(id), false);
  });
});
