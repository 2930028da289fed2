// Settlements parked for an operator. The pipeline parks a settlement, instead of guessing, when a
// venue cannot say what became of a step's money (VENUE_UNANSWERED, CHAIN_IN_DOUBT), when a job
// used its attempts after money may have left (ATTEMPTS_EXHAUSTED), or when a step fails for good
// after the stablecoin was delivered (FAILED_AFTER_MONEY_LEFT). A parked settlement keeps its
// status and its money where the ledger shows it; nothing automatic moves it until an operator
// resolves the review (`npm run admin -- settlements resolve`): MOVED (the step's money moved: the
// pipeline goes on from there) or NOT_MOVED (it did not: the settlement fails, the funds go back).
// Opening publishes settlement.review_opened, resolving settlement.review_resolved; both audited.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import type { Clock } from '../platform/clock.ts';
import { isUuid } from '../platform/ids.ts';
import { convert } from '../platform/money.ts';
import { insertAudit } from '../audit/repo.ts';
import { completeLocked, failLocked, minor, publish, recordStep, recordSteps, type Locked } from './apply.ts';
import { enqueueStep } from './jobs.ts';
import { UNFINISHED, type SettlementStatus } from './lifecycle.ts';
import * as repo from './repo.ts';
import * as reviews from './review-repo.ts';

export interface Alarm {
  error(fields: object, message: string): void;
}

/** The step whose money a settlement in this status, with these records, waits on. */
export function stepInQuestion(row: repo.SettlementRow, steps: repo.Steps): reviews.ReviewStep {
  if (row.settlementStatus === 'S400_FIAT_WITHDRAWAL_IN_PROGRESS') return 'WITHDRAWAL';
  if (row.settlementStatus === 'S300_IN_PROGRESS') return steps.has('TRANSFER_CONFIRMED') ? 'SWAP' : 'TRANSFER';
  return 'BUY';
}

/** Parks a locked settlement (or adds evidence to its open review); raises the alarm and publishes when it opens. */
export async function parkLocked(
  client: Queryable, row: Locked, steps: repo.Steps, park: { reason: reviews.ReviewReason; detail: string; evidence: unknown }, now: Date, alarm?: Alarm,
): Promise<reviews.ReviewRow> {
  const step = stepInQuestion(row, steps);
  const { row: review, opened } = await reviews.openReview(client, { reviewId: randomUUID(), settlementId: row.settlementId, step, ...park, now });
  if (!opened) return review;
  alarm?.error({ alarm: 'SETTLEMENT_PARKED', settlementId: row.settlementId, reviewId: review.reviewId, step, reason: park.reason, detail: park.detail }, 'settlement parked for review');
  await publish(client, row, 'settlement.review_opened', { reviewId: review.reviewId, step, reviewReason: park.reason, detail: park.detail });
  return review;
}

export type ResolveError = 'NOT_FOUND' | 'ALREADY_RESOLVED' | 'NOT_APPLICABLE';
export type ResolveResult =
  | { ok: true; settlementStatus: string; review: reviews.ReviewRow }
  | { ok: false; error: ResolveError; detail: string };

export interface ResolveDeps {
  db: Db;
  clock: Clock;
}

/** MOVED: the pipeline goes on from the step in question, in the resolving transaction. */
async function continueAfter(client: Queryable, row: Locked, review: reviews.ReviewRow, steps: repo.Steps, now: Date): Promise<Locked> {
  const established = { establishedBy: 'review', reviewId: review.reviewId };
  switch (review.step) {
    case 'BUY': // placed: the exchange answers the same reference with the order it holds
      await enqueueStep(client, 'buy', row.settlementId);
      return row;
    case 'SWAP':
      await enqueueStep(client, 'swap', row.settlementId);
      return row;
    case 'TRANSFER': { // the stablecoin reached the destination member's wallet
      const txHash = steps.get('TRANSFER')?.['txHash'] ?? null;
      await recordSteps(client, row, [['TRANSFER', { txHash, ...established }], ['TRANSFER_CONFIRMED', { txHash, ...established }]], now);
      await enqueueStep(client, 'swap', row.settlementId);
      return row;
    }
    case 'WITHDRAWAL': { // the destination member holds the deposit
      await recordStep(client, row, 'WITHDRAWAL', { depositId: null, ...established }, now);
      const received = convert(minor(row.settlementAmt, row.sourceCcy), row.sourceCcy, row.rate, row.destinationCcy);
      return completeLocked(client, row, received, { depositId: steps.get('WITHDRAWAL')?.['depositId'] ?? null, ...established }, now);
    }
  }
}

export async function resolveReview(deps: ResolveDeps, reviewId: string, outcome: reviews.Outcome, actor: string, note: string): Promise<ResolveResult> {
  if (!isUuid(reviewId)) return { ok: false, error: 'NOT_FOUND', detail: `reviewId: ${reviewId}` };
  return withTransaction(deps.db, async (client): Promise<ResolveResult> => {
    const found = await reviews.lockReview(client, reviewId);
    if (!found) return { ok: false, error: 'NOT_FOUND', detail: `reviewId: ${reviewId}` };
    if (found.resolvedAt) return { ok: false, error: 'ALREADY_RESOLVED', detail: `resolved ${found.outcome} at ${found.resolvedAt.toISOString()}` };
    const before = (await repo.lockSettlement(client, found.settlementId))!;
    if (!UNFINISHED.includes(before.settlementStatus as SettlementStatus)) {
      return { ok: false, error: 'NOT_APPLICABLE', detail: `settlementStatus: ${before.settlementStatus}` };
    }
    const now = deps.clock.now();
    const steps = await repo.readSteps(client, found.settlementId);
    let row = outcome === 'NOT_MOVED'
      ? await failLocked(client, before, `${found.step.toLowerCase()}: did not move (established by review ${reviewId})`, steps)
      : await continueAfter(client, before, found, steps, now);
    await reviews.closeReview(client, reviewId, outcome, actor, note, now);
    const review = { ...found, resolvedAt: now, outcome, resolvedBy: actor, note };
    await insertAudit(client, {
      actor, action: 'settlements.resolve', subject: `settlement:${found.settlementId}`,
      before: { settlementStatus: before.settlementStatus, reviewId, step: found.step, reason: found.reason },
      after: { settlementStatus: row.settlementStatus, reviewId, outcome, note },
    });
    row = await publish(client, row, 'settlement.review_resolved', { reviewId, step: found.step, reviewReason: found.reason, outcome });
    return { ok: true, settlementStatus: row.settlementStatus, review };
  });
}
