// In doubt is not an answer. A venue call that ended without a clear answer (a timeout, a dropped
// connection) may or may not have moved money, so the settlement stays where it is and the
// resolve-doubt job asks the venue by the step's reference:
// - found: its answer is recorded and the pipeline goes on;
// - the venue's word that nothing was done (not found; the chain's UNKNOWN): the step again with
//   the same reference; the chain's NOT_SENT (proven never to move): the settlement fails, funds returned;
// - no answer (the lookup fails; the chain's IN_DOUBT): asked again later (DOUBT_CHECK_DELAYS_MS),
//   then parked for an operator (review.ts). Nothing here ever refunds on a guess.
import type { PipelineContext } from './context.ts';
import { enqueueDoubt, enqueueStep, type StepName } from './jobs.ts';
import { parkLocked } from './review.ts';
import * as repo from './repo.ts';
import type { SettlementStatus } from './lifecycle.ts';
import type { ReviewReason, ReviewStep } from './review-repo.ts';
import { referenceOf } from './references.ts';
import { callVenue, type StepRunner } from './steps.ts';
import type { VenueLookup } from './venues.ts';

/** When the venue is asked again after each unanswered question; after the last, the settlement is parked. */
export const DOUBT_CHECK_DELAYS_MS: readonly number[] = [1000, 5000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];

/** Where each step's doubt applies: the status, and the record that settles it. */
const WHERE: Record<ReviewStep, { status: SettlementStatus; answered: repo.Step; retry: StepName }> = {
  BUY: { status: 'S200_RECEIVED', answered: 'BUY', retry: 'buy' },
  TRANSFER: { status: 'S300_IN_PROGRESS', answered: 'TRANSFER_CONFIRMED', retry: 'transfer' },
  SWAP: { status: 'S300_IN_PROGRESS', answered: 'SWAP', retry: 'swap' },
  WITHDRAWAL: { status: 'S400_FIAT_WITHDRAWAL_IN_PROGRESS', answered: 'WITHDRAWAL', retry: 'withdraw' },
};

/**
 * Question `check` to come, or, once the questions are used up, the settlement parked; under the
 * row's lock, and only while the settlement still waits on the step (a concurrent run, such as a
 * job freed after a crash, may have had the answer and queued the next step: that job is kept).
 */
export async function askLater(ctx: PipelineContext, settlementId: string, step: ReviewStep, check: number, detail: string, reason: ReviewReason = 'VENUE_UNANSWERED'): Promise<void> {
  const now = ctx.deps.clock.now();
  await ctx.whileIn(settlementId, [WHERE[step].status], async (client, row, steps) => {
    if (steps.has(WHERE[step].answered)) return;
    if (check < DOUBT_CHECK_DELAYS_MS.length) return enqueueDoubt(client, settlementId, step, check, new Date(now.getTime() + DOUBT_CHECK_DELAYS_MS[check]!));
    await parkLocked(client, row, steps, { reason, detail: `${detail} (${check} questions)`, evidence: { detail, questions: check, at: now } }, now, ctx.deps.alarm);
  });
}

/** The venue's word that nothing was done: the step again with the same reference, while questions remain (same guard as askLater). */
export async function retryStep(ctx: PipelineContext, settlementId: string, step: ReviewStep, check: number, detail: string): Promise<void> {
  const next = check + 1;
  if (next >= DOUBT_CHECK_DELAYS_MS.length) return askLater(ctx, settlementId, step, next, `${detail}; retried ${next} times`);
  const runAt = new Date(ctx.deps.clock.now().getTime() + DOUBT_CHECK_DELAYS_MS[check]!);
  await ctx.whileIn(settlementId, [WHERE[step].status], async (client, _row, steps) => {
    if (!steps.has(WHERE[step].answered)) await enqueueStep(client, WHERE[step].retry, settlementId, runAt, next);
  });
}


export function createDoubt(ctx: PipelineContext, recorded: StepRunner['recorded']) {
  const { venues, db } = ctx.deps;

  /** A lookup's answer: recorded when found, the step again when not, asked later when there is none. */
  async function settle<T>(settlementId: string, step: ReviewStep, check: number, asked: Awaited<ReturnType<typeof callVenue<VenueLookup<T>>>>, record: (result: T) => Promise<void>) {
    if (asked.kind !== 'DONE') return askLater(ctx, settlementId, step, check + 1, `lookup of ${referenceOf(settlementId, step)}: ${asked.kind === 'REFUSED' ? asked.reason : asked.error}`);
    if (asked.result.found) return record(asked.result.result);
    return retryStep(ctx, settlementId, step, check, `${referenceOf(settlementId, step)} not found at the venue`);
  }

  /** The resolve-doubt job: one question to the venue about the step, and what follows from its answer. */
  return async function resolveDoubt(settlementId: string, step: ReviewStep, check: number): Promise<void> {
    const row = await repo.readSettlement(db, settlementId);
    if (row?.settlementStatus !== WHERE[step].status || (await ctx.isParked(settlementId))) return;
    if ((await repo.readSteps(db, settlementId)).has(WHERE[step].answered)) return;
    const reference = referenceOf(settlementId, step);
    switch (step) {
      case 'BUY':
        return settle(settlementId, step, check, await callVenue(() => venues.sourceExchange.findBuy(reference)), (r) => recorded.buy(settlementId, r));
      case 'SWAP':
        return settle(settlementId, step, check, await callVenue(() => venues.destinationExchange.findSwap(reference)), (r) => recorded.swap(settlementId, r));
      case 'WITHDRAWAL':
        return settle(settlementId, step, check, await callVenue(() => venues.bank.findDeposit(reference)), (r) => recorded.deposit(settlementId, r));
      case 'TRANSFER': {
        const asked = await callVenue(() => venues.chain.status(reference));
        if (asked.kind === 'DONE') return recorded.chain(settlementId, asked.result, check + 1);
        return askLater(ctx, settlementId, step, check + 1, `status of ${reference}: ${asked.kind === 'REFUSED' ? asked.reason : asked.error}`);
      }
    }
  };
}
