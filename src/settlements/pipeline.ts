// The settlement pipeline: one durable graphile-worker job per step, each enqueued in the
// transaction that records the step before it. A step calls its venue with a reference (the
// settlement id and the step), outside any lock, then records the venue's answer and moves the
// settlement on under a lock on its row; a step found recorded is not done again, and a venue
// asked again with the same reference answers as it did, so a crash anywhere repeats nothing.
//
//   start     S100_SCHEDULED -> S200_RECEIVED at dueDate
//   buy       the source exchange buys the stablecoin; S200 -> S300; ledger: source funds in
//   transfer  the chain carries it; the job comes back until the transfer has its confirmations
//   swap      the destination exchange swaps it; S300 -> S400
//   withdraw  the bank deposits with the destination member; once confirmed S400 -> S600 and
//             the source member's prefund there is credited settlementAmt * rate (half-up)
//
// A step that fails for good (a venue's refusal, its last attempt, or the sandbox's `fail`) ends
// the settlement in S700_FAILED; source funds already taken in are returned in the ledger.
import type { JobHelpers, Task, TaskList } from 'graphile-worker';
import { legTransferId } from '../ledger/transfer-ids.ts';
import type { Clock } from '../platform/clock.ts';
import { type Db, type Queryable } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { enqueueJob, removeJob, type JobSpec } from '../platform/jobs.ts';
import { convert, formatMinor, parseAmount } from '../platform/money.ts';
import { liquidityAccount, prefundAccount, sourceFundsAccount, type AccountSpec } from '../ledger/accounts.ts';
import { createTransfers } from '../ledger/service.ts';
import { insertEvents } from '../events/repo.ts';
import { findTransition, UNFINISHED, type SettlementEvent, type SettlementStatus } from './lifecycle.ts';
import * as repo from './repo.ts';
import { statusEventData } from './views.ts';
import { VenueRefusal, type Venues } from './venues.ts';

export const SETTLEMENT_TASKS = {
  start: 'settlement.start',
  buy: 'settlement.buy',
  transfer: 'settlement.transfer',
  swap: 'settlement.swap',
  withdraw: 'settlement.withdraw',
} as const;
export type StepName = keyof typeof SETTLEMENT_TASKS;

/** How long a step that waits (confirmations, a deposit) waits before it looks again. */
const RECHECK_MS = 250;
const STEP_MAX_ATTEMPTS = 10;

const jobKey = (settlementId: string) => `settlement:${settlementId}`;

/** The job of a settlement's next step; one job per settlement at a time (the key replaces a pending one). */
export const stepJob = (step: StepName, settlementId: string, runAt?: Date): JobSpec => ({
  task: SETTLEMENT_TASKS[step], payload: { settlementId }, jobKey: jobKey(settlementId), maxAttempts: STEP_MAX_ATTEMPTS, ...(runAt ? { runAt } : {}),
});

export async function enqueueStep(client: Queryable, step: StepName, settlementId: string, runAt?: Date): Promise<void> {
  const job = stepJob(step, settlementId, runAt);
  await enqueueJob(client, job.task, job.payload, job);
}

export interface PipelineDeps {
  db: Db;
  venues: Venues;
  clock: Clock;
}

type Locked = repo.PipelineRow;

function minor(amount: string, currency: string): bigint {
  const parsed = parseAmount(amount, currency);
  if (!parsed.ok) throw new Error(`${amount} ${currency} is not an exact amount`);
  return parsed.minor;
}

const isFinished = (status: string) => !UNFINISHED.includes(status as SettlementStatus);

export function createPipeline(deps: PipelineDeps) {
  const { venues } = deps;

  /** Moves a locked settlement by the table, writes it and its event. */
  async function move(client: Queryable, row: Locked, event: SettlementEvent, changes: Partial<repo.SettlementRow> = {}): Promise<repo.SettlementRow> {
    const transition = findTransition(row.settlementStatus as SettlementStatus, event);
    if (!transition) throw new Error(`settlement ${row.settlementId}: ${event} is not allowed from ${row.settlementStatus}`);
    const next = { ...row, ...changes, settlementStatus: transition.to, eventSequence: row.eventSequence + 1 };
    await repo.updateSettlement(client, next, event === 'FAILED' ? false : row.failNextStep);
    await insertEvents(client, [{
      memberId: row.sourceMemberId, type: 'settlement.status_changed', resourceId: row.settlementId,
      sequence: next.eventSequence, data: statusEventData(next, row.settlementStatus),
    }]);
    return next;
  }

  async function post(client: Queryable, debit: AccountSpec, credit: AccountSpec, amount: bigint, reason: string, reference: string) {
    if (amount === 0n) return;
    await createTransfers(client, [[{ transferId: legTransferId(reference, reason), debit, credit, amount, reason, reference }]], { twoPhase: false });
  }

  /** In a transaction, with the row locked: runs `then` only if the settlement is still where the step expects it. */
  async function whileIn(settlementId: string, statuses: SettlementStatus[], then: (client: Queryable, row: Locked) => Promise<void>) {
    await withTransaction(deps.db, async (client) => {
      const row = await repo.lockSettlement(client, settlementId);
      if (row && statuses.includes(row.settlementStatus as SettlementStatus)) await then(client, row);
    });
  }

  /** Ends an unfinished settlement in S700_FAILED; source funds already taken in go back. */
  async function fail(settlementId: string, reason: string): Promise<void> {
    await whileIn(settlementId, [...UNFINISHED], async (client, row) => {
      const steps = await repo.readSteps(client, settlementId);
      await move(client, row, 'FAILED', { failureReason: reason, pendingAmt: formatMinor(0n, row.sourceCcy) });
      if (steps.has('BUY')) {
        await post(client, liquidityAccount(row.sourceCcy), sourceFundsAccount(row.sourceMemberId, row.sourceCcy),
          minor(row.settlementAmt, row.sourceCcy), 'SETTLEMENT_REFUND', settlementId);
      }
    });
  }

  /** The sandbox's `fail`: a step about to call its venue fails for good instead. */
  async function failedOnPurpose(row: { settlementId: string; failNextStep: boolean }): Promise<boolean> {
    if (!row.failNextStep) return false;
    await fail(row.settlementId, 'failed on request (sandbox)');
    return true;
  }

  const steps: Record<StepName, (settlementId: string, force?: boolean) => Promise<void>> = {
    async start(settlementId, force = false) {
      const row = await repo.readSettlement(deps.db, settlementId);
      if (row?.settlementStatus !== 'S100_SCHEDULED' || (await failedOnPurpose(row))) return;
      await whileIn(settlementId, ['S100_SCHEDULED'], async (client, row) => {
        if (!force && deps.clock.now() < row.dueDate) throw new Error(`settlement ${settlementId} is due at ${row.dueDate.toISOString()}, not yet`);
        await move(client, row, 'DUE');
        await enqueueStep(client, 'buy', settlementId);
      });
    },

    async buy(settlementId) {
      const row = await repo.readSettlement(deps.db, settlementId);
      if (row?.settlementStatus !== 'S200_RECEIVED' || (await failedOnPurpose(row))) return;
      const order = await venues.sourceExchange.buy({ reference: `${settlementId}:BUY`, currency: row.sourceCcy, amount: row.settlementAmt, asset: venues.asset });
      await whileIn(settlementId, ['S200_RECEIVED'], async (client, locked) => {
        await repo.recordStep(client, settlementId, 'BUY', { ...order, asset: venues.asset, currency: row.sourceCcy, amount: row.settlementAmt }, deps.clock.now());
        await move(client, locked, 'PROCESSING_STARTED');
        await post(client, sourceFundsAccount(row.sourceMemberId, row.sourceCcy), liquidityAccount(row.sourceCcy),
          minor(row.settlementAmt, row.sourceCcy), 'SETTLEMENT_IN', settlementId);
        await enqueueStep(client, 'transfer', settlementId);
      });
    },

    async transfer(settlementId) {
      const row = await repo.readSettlement(deps.db, settlementId);
      if (row?.settlementStatus !== 'S300_IN_PROGRESS') return;
      const done = await repo.readSteps(deps.db, settlementId);
      const bought = done.get('BUY');
      if (!bought) throw new Error(`settlement ${settlementId}: no BUY step recorded`);
      const sent = done.get('TRANSFER');
      if (!sent) {
        if (await failedOnPurpose(row)) return;
        const transfer = await venues.chain.send({
          reference: `${settlementId}:TRANSFER`, asset: venues.asset, amount: String(bought['assetAmount']), toAddress: venues.depositAddress,
        });
        await whileIn(settlementId, ['S300_IN_PROGRESS'], async (client) => {
          await repo.recordStep(client, settlementId, 'TRANSFER', { ...transfer, asset: venues.asset, amount: String(bought['assetAmount']) }, deps.clock.now());
          await enqueueStep(client, 'transfer', settlementId, new Date(deps.clock.now().getTime() + RECHECK_MS));
        });
        return;
      }
      if (done.has('TRANSFER_CONFIRMED')) return;
      const confirmations = await venues.chain.confirmations(String(sent['txHash']));
      if (confirmations < venues.chain.requiredConfirmations) {
        await enqueueStep(deps.db, 'transfer', settlementId, new Date(deps.clock.now().getTime() + RECHECK_MS));
        return;
      }
      await whileIn(settlementId, ['S300_IN_PROGRESS'], async (client) => {
        if (await repo.recordStep(client, settlementId, 'TRANSFER_CONFIRMED', { confirmations }, deps.clock.now())) await enqueueStep(client, 'swap', settlementId);
      });
    },

    async swap(settlementId) {
      const row = await repo.readSettlement(deps.db, settlementId);
      if (row?.settlementStatus !== 'S300_IN_PROGRESS') return;
      const done = await repo.readSteps(deps.db, settlementId);
      const sent = done.get('TRANSFER');
      if (!sent || !done.has('TRANSFER_CONFIRMED') || (await failedOnPurpose(row))) return;
      const order = await venues.destinationExchange.swap({
        reference: `${settlementId}:SWAP`, asset: venues.asset, assetAmount: String(sent['amount']), currency: row.destinationCcy, rate: row.rate,
      });
      await whileIn(settlementId, ['S300_IN_PROGRESS'], async (client, locked) => {
        await repo.recordStep(client, settlementId, 'SWAP', { ...order, currency: row.destinationCcy, rate: row.rate }, deps.clock.now());
        await move(client, locked, 'WITHDRAWAL_STARTED');
        await enqueueStep(client, 'withdraw', settlementId);
      });
    },

    async withdraw(settlementId) {
      const row = await repo.readSettlement(deps.db, settlementId);
      if (row?.settlementStatus !== 'S400_FIAT_WITHDRAWAL_IN_PROGRESS') return;
      const done = await repo.readSteps(deps.db, settlementId);
      // what the settlement promised: settlementAmt * rate, half-up to the destination currency
      const received = convert(minor(row.settlementAmt, row.sourceCcy), row.sourceCcy, row.rate, row.destinationCcy);
      const deposit = done.get('WITHDRAWAL');
      if (!deposit) {
        if (await failedOnPurpose(row)) return;
        const order = await venues.bank.deposit({
          reference: `${settlementId}:WITHDRAWAL`, destinationMemberId: row.destinationMemberId, currency: row.destinationCcy,
          amount: formatMinor(received, row.destinationCcy),
        });
        await whileIn(settlementId, ['S400_FIAT_WITHDRAWAL_IN_PROGRESS'], async (client) => {
          await repo.recordStep(client, settlementId, 'WITHDRAWAL', { ...order, amount: formatMinor(received, row.destinationCcy) }, deps.clock.now());
          await enqueueStep(client, 'withdraw', settlementId, new Date(deps.clock.now().getTime() + RECHECK_MS));
        });
        return;
      }
      if ((await venues.bank.status(String(deposit['depositId']))) !== 'CONFIRMED') {
        await enqueueStep(deps.db, 'withdraw', settlementId, new Date(deps.clock.now().getTime() + RECHECK_MS));
        return;
      }
      await whileIn(settlementId, ['S400_FIAT_WITHDRAWAL_IN_PROGRESS'], async (client, locked) => {
        const now = deps.clock.now();
        await repo.recordStep(client, settlementId, 'WITHDRAWAL_CONFIRMED', { depositId: deposit['depositId'] }, now);
        await move(client, locked, 'DEPOSIT_CONFIRMED', {
          settlementAmtReceived: formatMinor(received, row.destinationCcy), pendingAmt: formatMinor(0n, row.sourceCcy), completionTime: now,
        });
        await post(client, liquidityAccount(row.destinationCcy), prefundAccount(row.sourceMemberId, row.destinationMemberId, row.destinationCcy),
          received, 'SETTLEMENT_OUT', settlementId);
      });
    },
  };

  /** The step a settlement waits for, by its status and what is recorded. */
  async function nextStep(row: repo.SettlementRow): Promise<StepName | undefined> {
    switch (row.settlementStatus) {
      case 'S100_SCHEDULED': return 'start';
      case 'S200_RECEIVED': return 'buy';
      case 'S300_IN_PROGRESS': return (await repo.readSteps(deps.db, row.settlementId)).has('TRANSFER_CONFIRMED') ? 'swap' : 'transfer';
      case 'S400_FIAT_WITHDRAWAL_IN_PROGRESS': return 'withdraw';
      default: return undefined;
    }
  }

  const task = (step: StepName): Task => async (payload, helpers: JobHelpers) => {
    const settlementId = (payload as { settlementId?: unknown } | null)?.settlementId;
    if (typeof settlementId !== 'string') throw new Error('job payload has no settlementId');
    try {
      await steps[step](settlementId);
    } catch (error) {
      const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts;
      if (!(error instanceof VenueRefusal) && !lastAttempt) throw error;
      helpers.logger.error(`settlement ${settlementId}: ${step} failed for good: ${(error as Error).message}`);
      await fail(settlementId, `${step}: ${(error as Error).message}`);
    }
  };

  /** POST /v2/settlements/{id}/cancel: a scheduled settlement ends (S500_TERMINATED) and its start job goes. */
  async function cancel(memberId: string, settlementId: string): Promise<{ ok: true; row: repo.SettlementRow } | { ok: false; code: 'NOT_FOUND' | 'INVALID_STATE'; detail: string }> {
    if (!(await repo.findSettlement(deps.db, memberId, settlementId))) return { ok: false, code: 'NOT_FOUND', detail: `settlementId: ${settlementId}` };
    return withTransaction(deps.db, async (client) => {
      const row = (await repo.lockSettlement(client, settlementId))!;
      if (row.settlementStatus !== 'S100_SCHEDULED') return { ok: false as const, code: 'INVALID_STATE' as const, detail: `settlementStatus: ${row.settlementStatus}` };
      const next = await move(client, row, 'CANCELLED', { pendingAmt: formatMinor(0n, row.sourceCcy) });
      await removeJob(client, jobKey(settlementId));
      return { ok: true as const, row: next };
    });
  }

  return {
    steps,
    nextStep,
    cancel,
    fail,
    tasks: Object.fromEntries((Object.keys(SETTLEMENT_TASKS) as StepName[]).map((s) => [SETTLEMENT_TASKS[s], task(s)])) as TaskList,
    isFinished,
  };
}

export type Pipeline = ReturnType<typeof createPipeline>;
