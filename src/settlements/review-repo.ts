// SQL for settlement reviews: settlements parked for an operator (migration 0033).
import type { Queryable } from '../platform/database/pool.ts';

/** The venue step whose outcome is in question. */
export type ReviewStep = 'BUY' | 'TRANSFER' | 'SWAP' | 'WITHDRAWAL';
/**
 * VENUE_UNANSWERED: the venue could not be asked what it did with the reference; CHAIN_IN_DOUBT:
 * the chain's answer does not settle it; ATTEMPTS_EXHAUSTED: the step's job used its attempts
 * after money may have left; FAILED_AFTER_MONEY_LEFT: a step failed for good after the stablecoin
 * was broadcast, so the destination member may hold it.
 */
export type ReviewReason = 'VENUE_UNANSWERED' | 'CHAIN_IN_DOUBT' | 'ATTEMPTS_EXHAUSTED' | 'FAILED_AFTER_MONEY_LEFT';
export type Outcome = 'MOVED' | 'NOT_MOVED';
export const OUTCOMES: readonly Outcome[] = ['MOVED', 'NOT_MOVED'];

export interface ReviewRow {
  reviewId: string;
  settlementId: string;
  step: ReviewStep;
  reason: ReviewReason;
  detail: string;
  evidence: unknown[];
  openedAt: Date;
  resolvedAt: Date | null;
  outcome: Outcome | null;
  resolvedBy: string | null;
  note: string | null;
}

const COLUMNS = `review_id AS "reviewId", settlement_id AS "settlementId", step, reason, detail, evidence, opened_at AS "openedAt",
  resolved_at AS "resolvedAt", outcome, resolved_by AS "resolvedBy", note`;

/** Opens a review of the settlement, or adds the evidence to the one already open; answers it and whether it opened now. */
export async function openReview(
  db: Queryable,
  review: { reviewId: string; settlementId: string; step: ReviewStep; reason: ReviewReason; detail: string; evidence: unknown; now: Date },
): Promise<{ row: ReviewRow; opened: boolean }> {
  const { rows } = await db.query<ReviewRow & { opened: boolean }>(
    `INSERT INTO settlement_reviews (review_id, settlement_id, step, reason, detail, evidence, opened_at)
     VALUES ($1, $2, $3, $4, $5, jsonb_build_array($6::jsonb), $7)
     ON CONFLICT (settlement_id) WHERE resolved_at IS NULL
       DO UPDATE SET evidence = settlement_reviews.evidence || jsonb_build_array($6::jsonb)
     RETURNING ${COLUMNS}, (xmax = 0) AS opened`,
    [review.reviewId, review.settlementId, review.step, review.reason, review.detail, JSON.stringify(review.evidence), review.now],
  );
  const { opened, ...row } = rows[0]!;
  return { row, opened };
}

export async function openReviewOf(db: Queryable, settlementId: string): Promise<ReviewRow | undefined> {
  const { rows } = await db.query<ReviewRow>(`SELECT ${COLUMNS} FROM settlement_reviews WHERE settlement_id = $1 AND resolved_at IS NULL`, [settlementId]);
  return rows[0];
}

export async function lockReview(db: Queryable, reviewId: string): Promise<ReviewRow | undefined> {
  const { rows } = await db.query<ReviewRow>(`SELECT ${COLUMNS} FROM settlement_reviews WHERE review_id = $1 FOR UPDATE`, [reviewId]);
  return rows[0];
}

export async function closeReview(db: Queryable, reviewId: string, outcome: Outcome, actor: string, note: string, now: Date): Promise<void> {
  const { rowCount } = await db.query(
    'UPDATE settlement_reviews SET resolved_at = $2, outcome = $3, resolved_by = $4, note = $5 WHERE review_id = $1 AND resolved_at IS NULL',
    [reviewId, now, outcome, actor, note],
  );
  if (rowCount !== 1) throw new Error(`settlement review ${reviewId} was not open`);
}

/** Reviews, newest first: the open ones only unless `all`. */
export async function listReviews(db: Queryable, options: { all: boolean; limit: number }): Promise<ReviewRow[]> {
  const { rows } = await db.query<ReviewRow>(
    `SELECT ${COLUMNS} FROM settlement_reviews ${options.all ? '' : 'WHERE resolved_at IS NULL'} ORDER BY opened_at DESC, review_id LIMIT $1`,
    [options.limit],
  );
  return rows;
}
