// The pipeline's steps, one job each. A step records its intent (*_REQUESTED) before it calls its
// venue with a reference (the settlement id and the step), makes the call with no lock held, then
// records the answer and moves the settlement on under a lock on its row.
//
//   start     S100_SCHEDULED -> S200_RECEIVED at dueDate
//   buy       the source exchange buys the stablecoin; S200 -> S300 (the destination member must have a wallet)
//   transfer  the chain carries it to the destination member's wallet; comes back until it is final
//   swap      the destination exchange swaps it; S300 -> S400
//   withdraw  the bank deposits with the destination member; once confirmed S400 -> S600 and the
//             source member's prefund there is credited settlementAmt * rate (half-up)
//
// A venue's refusal before any money left the service fails the settlement and returns what was
// taken in. A call that throws leaves the outcome unknown: doubt.ts asks the venue by reference.
// Once the stablecoin is broadcast, nothing fails automatically: an unclear end parks for an operator.
import { referenceOf } from './references.ts';
import { convert, formatMinor } from '../platform/money.ts';
import { walletAddressOf } from '../members/repo.ts';
import { completeLocked, minor, recordStep, recordSteps, applyEvent } from './apply.ts';
import { enqueueStep, RECHECK_MS, type StepName } from './jobs.ts';
import type { PipelineContext } from './context.ts';
import { askLater, retryStep } from './doubt.ts';
import * as repo from './repo.ts';
import { VenueRefusal, type ChainTransferState } from './venues.ts';

export type Outcome<T> = { kind: 'DONE'; result: T } | { kind: 'REFUSED'; reason: string } | { kind: 'UNKNOWN'; error: string };

/** Calls a venue: its answer, its refusal (its word that nothing was done), or an unknown outcome. */
export async function callVenue<T>(call: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { kind: 'DONE', result: await call() };
  } catch (error) {
    if (error instanceof VenueRefusal) return { kind: 'REFUSED', reason: error.message };
    return { kind: 'UNKNOWN', error: (error as Error).message };
  }
}

/** How long a broadcast transfer may stay unfinal before an operator is asked to look (a stuck or dropped transaction). */
export const TRANSFER_FINAL_WAIT_MAX_MS = 6 * 3_600_000;


export function createSteps(ctx: PipelineContext) {
  const { db, venues, clock } = ctx.deps;
  const later = () => new Date(clock.now().getTime() + RECHECK_MS);

  /** A settlement to work on: in this status, not parked. */
  async function readyIn(settlementId: string, status: string): Promise<repo.PipelineRow | undefined> {
    const row = await repo.readSettlement(db, settlementId);
    if (row?.settlementStatus !== status || (await ctx.isParked(settlementId))) return undefined;
    return row;
  }

  /** The sandbox's `fail`: before its intent, the step fails (nothing moved); after it, the settlement parks. */
  async function failedOnPurpose(row: repo.PipelineRow, steps: repo.Steps, intent: repo.Step, refundable: boolean): Promise<boolean> {
    if (!row.failNextStep) return false;
    if (!steps.has(intent) && refundable) await ctx.failNothingMoved(row.settlementId, 'failed on request (sandbox)');
    else await ctx.park(row.settlementId, 'FAILED_AFTER_MONEY_LEFT', 'failed on request (sandbox) after money may have left', { sandbox: true });
    return true;
  }

  const recorded = {
    async buy(settlementId: string, order: { orderId: string; assetAmount: string }) {
      await ctx.whileIn(settlementId, ['S200_RECEIVED'], async (client, locked) => {
        const now = clock.now();
        await recordStep(client, locked, 'BUY', { ...order, asset: venues.chain.asset, currency: locked.sourceCcy, amount: locked.settlementAmt }, now);
        await applyEvent(client, locked, 'PROCESSING_STARTED');
        await enqueueStep(client, 'transfer', settlementId);
      });
    },

    /** What the chain says of the transfer, whoever asked (the step or the doubt job's check `check`). */
    async chain(settlementId: string, state: ChainTransferState, check: number) {
      const reference = referenceOf(settlementId, 'TRANSFER');
      switch (state.state) {
        case 'CONFIRMED':
          return ctx.whileIn(settlementId, ['S300_IN_PROGRESS'], async (client, locked) => {
            const now = clock.now();
            await recordSteps(client, locked, [
              ['TRANSFER', { txHash: state.txHash }],
              ['TRANSFER_CONFIRMED', { txHash: state.txHash, blockNumber: state.blockNumber, confirmations: state.confirmations }],
            ], now);
            await enqueueStep(client, 'swap', settlementId);
          });
        case 'PENDING': {
          const sentAt = await repo.stepDoneAt(db, settlementId, 'TRANSFER');
          if (sentAt && clock.now().getTime() - sentAt.getTime() > TRANSFER_FINAL_WAIT_MAX_MS) {
            return ctx.park(settlementId, 'CHAIN_IN_DOUBT', `${reference} not final ${TRANSFER_FINAL_WAIT_MAX_MS / 3_600_000} h after it was broadcast`, { state });
          }
          return ctx.whileIn(settlementId, ['S300_IN_PROGRESS'], async (client, locked, steps) => {
            // a concurrent run (a job freed after a crash) may have seen it final and queued the swap: keep that job
            if (steps.has('TRANSFER_CONFIRMED')) return;
            if (state.txHash !== null) await recordStep(client, locked, 'TRANSFER', { txHash: state.txHash }, clock.now());
            await enqueueStep(client, 'transfer', settlementId, new Date(clock.now().getTime() + (venues.chain.pollMs ?? RECHECK_MS)));
          });
        }
        case 'NOT_SENT':
          return ctx.failNothingMoved(settlementId, `transfer: not sent (${state.reason})`);
        case 'UNKNOWN':
          // the rail holds no intent under the reference: nothing was signed; send again, the same reference
          return retryStep(ctx, settlementId, 'TRANSFER', check, `the chain rail knows nothing of ${reference}`);
        case 'IN_DOUBT':
          return askLater(ctx, settlementId, 'TRANSFER', check, `the chain answer does not settle ${reference}: ${state.reason}`, 'CHAIN_IN_DOUBT');
      }
    },

    async swap(settlementId: string, order: { orderId: string; proceeds: string }) {
      await ctx.whileIn(settlementId, ['S300_IN_PROGRESS'], async (client, locked) => {
        await recordStep(client, locked, 'SWAP', order, clock.now());
        await applyEvent(client, locked, 'WITHDRAWAL_STARTED');
        await enqueueStep(client, 'withdraw', settlementId);
      });
    },

    async deposit(settlementId: string, order: { depositId: string }) {
      await ctx.whileIn(settlementId, ['S400_FIAT_WITHDRAWAL_IN_PROGRESS'], async (client, locked) => {
        await recordStep(client, locked, 'WITHDRAWAL', order, clock.now());
        await enqueueStep(client, 'withdraw', settlementId, later());
      });
    },
  };

  /** What follows a venue call: its answer recorded, its refusal, or a question by reference later. */
  async function afterCall<T>(settlementId: string, step: 'BUY' | 'SWAP' | 'WITHDRAWAL', outcome: Outcome<T>, check: number, done: (result: T) => Promise<void>, refundable: boolean) {
    if (outcome.kind === 'DONE') return done(outcome.result);
    if (outcome.kind === 'UNKNOWN') return askLater(ctx, settlementId, step, check, `${step} ${referenceOf(settlementId, step)}: ${outcome.error}`);
    const reason = `${step.toLowerCase()}: ${outcome.reason}`;
    if (refundable) return ctx.failNothingMoved(settlementId, reason);
    return ctx.park(settlementId, 'FAILED_AFTER_MONEY_LEFT', `${reason} (the stablecoin was delivered to the destination member)`, { refused: outcome.reason });
  }

  const steps: Record<StepName, (settlementId: string, force?: boolean, check?: number) => Promise<void>> = {
    async start(settlementId, force = false) {
      const row = await readyIn(settlementId, 'S100_SCHEDULED');
      if (!row) return;
      if (row.failNextStep) return ctx.failNothingMoved(settlementId, 'failed on request (sandbox)');
      await ctx.whileIn(settlementId, ['S100_SCHEDULED'], async (client, locked) => {
        if (!force && clock.now() < locked.dueDate) throw new Error(`settlement ${settlementId} is due at ${locked.dueDate.toISOString()}, not yet`);
        await applyEvent(client, locked, 'DUE');
        await enqueueStep(client, 'buy', settlementId);
      });
    },

    async buy(settlementId, _force, check = 0) {
      const row = await readyIn(settlementId, 'S200_RECEIVED');
      if (!row) return;
      const done = await repo.readSteps(db, settlementId);
      if (await failedOnPurpose(row, done, 'BUY_REQUESTED', true)) return;
      if (!done.has('BUY_REQUESTED') && !(await walletAddressOf(db, row.destinationMemberId))) {
        return ctx.failNothingMoved(settlementId, `buy: the destination member ${row.destinationMemberId} has no wallet address to receive the stablecoin`);
      }
      const order = { reference: referenceOf(settlementId, 'BUY'), currency: row.sourceCcy, amount: row.settlementAmt, asset: venues.chain.asset };
      if (!(await ctx.requestIntent(settlementId, 'S200_RECEIVED', 'BUY_REQUESTED', order))) return;
      const outcome = await callVenue(() => venues.sourceExchange.buy(order));
      await afterCall(settlementId, 'BUY', outcome, check, (result) => recorded.buy(settlementId, result), true);
    },

    async transfer(settlementId, _force, check = 0) {
      const row = await readyIn(settlementId, 'S300_IN_PROGRESS');
      if (!row) return;
      const done = await repo.readSteps(db, settlementId);
      if (done.has('TRANSFER_CONFIRMED') || (await failedOnPurpose(row, done, 'TRANSFER_REQUESTED', true))) return;
      const reference = referenceOf(settlementId, 'TRANSFER');
      if (done.has('TRANSFER')) {
        // broadcast: only ever ask; its outcome is the chain's to say
        const asked = await callVenue(() => venues.chain.status(reference));
        if (asked.kind === 'DONE') return recorded.chain(settlementId, asked.result, check);
        return askLater(ctx, settlementId, 'TRANSFER', check, `status of ${reference}: ${asked.kind === 'REFUSED' ? asked.reason : asked.error}`);
      }
      const intent = done.get('TRANSFER_REQUESTED') ?? await newTransferIntent(row, done);
      if (!intent) return;
      if (!(await ctx.requestIntent(settlementId, 'S300_IN_PROGRESS', 'TRANSFER_REQUESTED', intent))) return;
      const sent = await callVenue(() => venues.chain.send({ reference, amount: String(intent['amount']), toAddress: String(intent['toAddress']) }));
      if (sent.kind === 'DONE') return recorded.chain(settlementId, sent.result, check);
      if (sent.kind === 'UNKNOWN') return askLater(ctx, settlementId, 'TRANSFER', check, `send ${reference}: ${sent.error}`);
      // refused: fails only once the rail confirms it holds nothing that could be mined
      const asked = await callVenue(() => venues.chain.status(reference));
      if (asked.kind === 'DONE' && (asked.result.state === 'UNKNOWN' || asked.result.state === 'NOT_SENT')) {
        return ctx.failNothingMoved(settlementId, `transfer: ${sent.reason}`);
      }
      if (asked.kind === 'DONE') return recorded.chain(settlementId, asked.result, check);
      return askLater(ctx, settlementId, 'TRANSFER', check, `send ${reference} refused (${sent.reason}), then its status: ${asked.kind === 'REFUSED' ? asked.reason : asked.error}`);
    },

    async swap(settlementId, _force, check = 0) {
      const row = await readyIn(settlementId, 'S300_IN_PROGRESS');
      if (!row) return;
      const done = await repo.readSteps(db, settlementId);
      if (!done.has('TRANSFER_CONFIRMED') || done.has('SWAP')) return;
      if (await failedOnPurpose(row, done, 'SWAP_REQUESTED', false)) return;
      const buy = done.get('BUY')!;
      const order = {
        reference: referenceOf(settlementId, 'SWAP'), asset: String(buy['asset']), assetAmount: String(buy['assetAmount']),
        currency: row.destinationCcy, rate: row.rate,
      };
      if (!(await ctx.requestIntent(settlementId, 'S300_IN_PROGRESS', 'SWAP_REQUESTED', order))) return;
      const outcome = await callVenue(() => venues.destinationExchange.swap(order));
      await afterCall(settlementId, 'SWAP', outcome, check, (result) => recorded.swap(settlementId, result), false);
    },

    async withdraw(settlementId, _force, check = 0) {
      const row = await readyIn(settlementId, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS');
      if (!row) return;
      const done = await repo.readSteps(db, settlementId);
      if (await failedOnPurpose(row, done, 'WITHDRAWAL', false)) return;
      const received = convert(minor(row.settlementAmt, row.sourceCcy), row.sourceCcy, row.rate, row.destinationCcy);
      const deposit = done.get('WITHDRAWAL');
      if (!deposit) {
        const order = {
          reference: referenceOf(settlementId, 'WITHDRAWAL'), destinationMemberId: row.destinationMemberId, currency: row.destinationCcy,
          amount: formatMinor(received, row.destinationCcy),
        };
        if (!(await ctx.requestIntent(settlementId, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS', 'WITHDRAWAL_REQUESTED', order))) return;
        const outcome = await callVenue(() => venues.bank.deposit(order));
        return afterCall(settlementId, 'WITHDRAWAL', outcome, check, (result) => recorded.deposit(settlementId, { ...result, amount: order.amount } as { depositId: string }), false);
      }
      if ((await venues.bank.status(String(deposit['depositId']))) !== 'CONFIRMED') {
        await enqueueStep(db, 'withdraw', settlementId, later());
        return;
      }
      await ctx.whileIn(settlementId, ['S400_FIAT_WITHDRAWAL_IN_PROGRESS'], async (client, locked) => {
        await completeLocked(client, locked, received, { depositId: deposit['depositId'] ?? null }, clock.now());
      });
    },
  };

  /** The transfer's intent: the stablecoin bought, to the destination member's wallet (none: fails, nothing moved). */
  async function newTransferIntent(row: repo.PipelineRow, done: repo.Steps): Promise<Record<string, string> | undefined> {
    const toAddress = await walletAddressOf(db, row.destinationMemberId);
    if (!toAddress) {
      await ctx.failNothingMoved(row.settlementId, `transfer: the destination member ${row.destinationMemberId} has no wallet address`);
      return undefined;
    }
    return { reference: referenceOf(row.settlementId, 'TRANSFER'), amount: String(done.get('BUY')!['assetAmount']), toAddress };
  }

  return { steps, recorded };
}

export type StepRunner = ReturnType<typeof createSteps>;
