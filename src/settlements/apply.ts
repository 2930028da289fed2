// The one place where a settlement changes: its status by the table of lifecycle.ts, the steps it
// records and the ledger legs each step posts, its failure (with the funds returned) and its
// events, all in the caller's transaction on a locked row.
//
// Where the money is, leg by leg (debit -> credit, each in one currency):
//   BUY                  SETTLEMENT_IN        SOURCE_FUNDS(source)  -> LIQUIDITY(source ccy)   settlementAmt
//                        SETTLEMENT_BUY       LIQUIDITY(asset)      -> TREASURY(asset)        the stablecoin bought
//   TRANSFER (broadcast) SETTLEMENT_SENT      TREASURY(asset)       -> IN_TRANSIT(asset)
//   TRANSFER_CONFIRMED   SETTLEMENT_DELIVERED IN_TRANSIT(asset)     -> LIQUIDITY(asset)
//   WITHDRAWAL_CONFIRMED SETTLEMENT_OUT       LIQUIDITY(dest ccy)   -> PREFUND(source at destination)
//   failed, nothing moved: SETTLEMENT_REFUND  LIQUIDITY(source ccy) -> SOURCE_FUNDS(source)
//                        SETTLEMENT_UNWIND    TREASURY or IN_TRANSIT(asset) -> LIQUIDITY(asset), when not delivered
import { legTransferId } from '../ledger/transfer-ids.ts';
import type { Queryable } from '../platform/database/pool.ts';
import { formatMinor, parseAmount } from '../platform/money.ts';
import {
  inTransitAccount, liquidityAccount, prefundAccount, sourceFundsAccount, treasuryAccount, type AccountSpec,
} from '../ledger/accounts.ts';
import { createTransfers } from '../ledger/service.ts';
import { insertEvents, type EventType } from '../events/repo.ts';
import { findTransition, type SettlementEvent, type SettlementStatus } from './lifecycle.ts';
import * as repo from './repo.ts';
import { statusEventData } from './views.ts';

export type Locked = repo.PipelineRow;

export function minor(amount: string, currency: string): bigint {
  const parsed = parseAmount(amount, currency);
  if (!parsed.ok) throw new Error(`${amount} ${currency} is not an exact amount`);
  return parsed.minor;
}

/** Moves a locked settlement by the table and writes it and its event; a move the table refuses is a bug. */
export async function applyEvent(client: Queryable, row: Locked, event: SettlementEvent, changes: Partial<repo.SettlementRow> = {}): Promise<Locked> {
  const transition = findTransition(row.settlementStatus as SettlementStatus, event);
  if (!transition) throw new Error(`settlement ${row.settlementId}: ${event} is not allowed from ${row.settlementStatus}`);
  const next = { ...row, ...changes, settlementStatus: transition.to, eventSequence: row.eventSequence + 1 };
  const failNextStep = event === 'FAILED' ? false : row.failNextStep;
  await repo.updateSettlement(client, next, failNextStep);
  await insertEvents(client, [{
    memberId: row.sourceMemberId, type: 'settlement.status_changed', resourceId: row.settlementId,
    sequence: next.eventSequence, data: statusEventData(next, row.settlementStatus),
  }]);
  return { ...next, failNextStep };
}

/** Publishes a settlement event that is not a status change (its review), and clears the sandbox fail flag. */
export async function publish(client: Queryable, row: Locked, type: EventType, data: object): Promise<Locked> {
  const next = { ...row, eventSequence: row.eventSequence + 1, failNextStep: false };
  await repo.updateSettlement(client, next, false);
  await insertEvents(client, [{
    memberId: row.sourceMemberId, type, resourceId: row.settlementId, sequence: next.eventSequence,
    data: { settlementId: row.settlementId, settlementStatus: row.settlementStatus, ...data },
  }]);
  return next;
}

type Leg = 'SETTLEMENT_IN' | 'SETTLEMENT_BUY' | 'SETTLEMENT_SENT' | 'SETTLEMENT_DELIVERED' | 'SETTLEMENT_OUT' | 'SETTLEMENT_REFUND' | 'SETTLEMENT_UNWIND';

/** The legs each recorded step posts. */
const STEP_LEGS: Partial<Record<repo.Step, Leg[]>> = {
  BUY: ['SETTLEMENT_IN', 'SETTLEMENT_BUY'],
  TRANSFER: ['SETTLEMENT_SENT'],
  TRANSFER_CONFIRMED: ['SETTLEMENT_DELIVERED'],
  WITHDRAWAL_CONFIRMED: ['SETTLEMENT_OUT'],
};

/** The stablecoin bought: its asset and amount, as the BUY step recorded them. */
function bought(steps: repo.Steps): { asset: string; amount: bigint } {
  const buy = steps.get('BUY');
  if (!buy) throw new Error('no BUY recorded');
  const asset = String(buy['asset']);
  return { asset, amount: minor(String(buy['assetAmount']), asset) };
}

/** A leg's accounts and amount for this settlement, given what its steps recorded. */
function legOf(row: Locked, leg: Leg, steps: repo.Steps): { debit: AccountSpec; credit: AccountSpec; amount: bigint } {
  const source = minor(row.settlementAmt, row.sourceCcy);
  switch (leg) {
    case 'SETTLEMENT_IN': return { debit: sourceFundsAccount(row.sourceMemberId, row.sourceCcy), credit: liquidityAccount(row.sourceCcy), amount: source };
    case 'SETTLEMENT_REFUND': return { debit: liquidityAccount(row.sourceCcy), credit: sourceFundsAccount(row.sourceMemberId, row.sourceCcy), amount: source };
    case 'SETTLEMENT_OUT': {
      const received = minor(String(row.settlementAmtReceived), row.destinationCcy);
      return { debit: liquidityAccount(row.destinationCcy), credit: prefundAccount(row.sourceMemberId, row.destinationMemberId, row.destinationCcy), amount: received };
    }
    default: {
      const { asset, amount } = bought(steps);
      const treasury = treasuryAccount(asset);
      const transit = inTransitAccount(row.destinationMemberId, asset);
      const pool = liquidityAccount(asset);
      if (leg === 'SETTLEMENT_BUY') return { debit: pool, credit: treasury, amount };
      if (leg === 'SETTLEMENT_SENT') return { debit: treasury, credit: transit, amount };
      if (leg === 'SETTLEMENT_DELIVERED') return { debit: transit, credit: pool, amount };
      return { debit: steps.has('TRANSFER') ? transit : treasury, credit: pool, amount };
    }
  }
}

async function post(client: Queryable, row: Locked, legs: Leg[], steps: repo.Steps): Promise<void> {
  const transfers = legs
    .map((leg) => ({ leg, ...legOf(row, leg, steps) }))
    .filter((t) => t.amount > 0n)
    .map((t) => [{ transferId: legTransferId(row.settlementId, t.leg), debit: t.debit, credit: t.credit, amount: t.amount, reason: t.leg, reference: row.settlementId }]);
  if (transfers.length > 0) await createTransfers(client, transfers, { twoPhase: false });
}

/**
 * Records steps of a locked settlement, each once, and posts the legs of those recorded now in one
 * ledger call (its accounts locked together, in the ledger's order); answers the steps as they now are.
 */
export async function recordSteps(client: Queryable, row: Locked, entries: Array<[repo.Step, object]>, now: Date): Promise<repo.Steps> {
  const legs: Leg[] = [];
  for (const [step, result] of entries) {
    if (await repo.recordStep(client, row.settlementId, step, result, now)) legs.push(...(STEP_LEGS[step] ?? []));
  }
  const steps = await repo.readSteps(client, row.settlementId);
  await post(client, row, legs, steps);
  return steps;
}

/** Records one step of a locked settlement once, with the legs it posts. */
export const recordStep = (client: Queryable, row: Locked, step: repo.Step, result: object, now: Date) => recordSteps(client, row, [[step, result]], now);

/**
 * Ends a locked, unfinished settlement in S700_FAILED and returns what it took in: only for a
 * settlement whose money is proven not to have left the service (or an operator established it).
 */
export async function failLocked(client: Queryable, row: Locked, reason: string, steps: repo.Steps): Promise<Locked> {
  const failed = await applyEvent(client, row, 'FAILED', { failureReason: reason, pendingAmt: formatMinor(0n, row.sourceCcy) });
  if (steps.has('BUY')) {
    await post(client, failed, steps.has('TRANSFER_CONFIRMED') ? ['SETTLEMENT_REFUND'] : ['SETTLEMENT_REFUND', 'SETTLEMENT_UNWIND'], steps);
  }
  return failed;
}

/** Completes a locked S400 settlement: the deposit is confirmed, the source member's prefund credited. */
export async function completeLocked(client: Queryable, row: Locked, received: bigint, confirmation: object, now: Date): Promise<Locked> {
  const done = await applyEvent(client, row, 'DEPOSIT_CONFIRMED', {
    settlementAmtReceived: formatMinor(received, row.destinationCcy), pendingAmt: formatMinor(0n, row.sourceCcy), completionTime: now,
  });
  await recordStep(client, done, 'WITHDRAWAL_CONFIRMED', confirmation, now);
  return done;
}
