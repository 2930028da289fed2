// SQL for payout reviews: payouts parked for an operator (migration 0020).
import type { Queryable } from '../platform/database/pool.ts';

export type ReviewReason = 'STATUS_UNKNOWN' | 'CANCEL_UNKNOWN' | 'CONTRADICTION';
export type Resolution = 'PAID' | 'NOT_PAID' | 'RETRY' | 'ACKNOWLEDGED';

export interface ReviewRow {
  reviewId: string;
  payoutId: string;
  reason: ReviewReason;
  detail: string;
  evidence: unknown[];
  openedAt: Date;
  resolvedAt: Date | null;
  resolution: Resolution | null;
  resolvedBy: string | null;
  note: string | null;
}

const COLUMNS = `review_id AS "reviewId", payout_id AS "payoutId", reason, detail, evidence, opened_at AS "openedAt",
  resolved_at AS "resolvedAt", resolution, resolved_by AS "resolvedBy", note`;

/**
 * Opens a review of the payout, or adds the evidence to the one already open. Answers the review
 * and whether it was opened now.
 */
export async function openReview(
  db: Queryable, review: { reviewId: string; payoutId: string; reason: ReviewReason; detail: string; evidence: unknown; now: Date },
): Promise<{ row: ReviewRow; opened: boolean }> {
  const { rows } = await db.query<ReviewRow & { opened: boolean }>(
    `INSERT INTO payout_reviews (review_id, payout_id, reason, detail, evidence, opened_at)
     VALUES ($1, $2, $3, $4, jsonb_build_array($5::jsonb), $6)
     ON CONFLICT (payout_id) WHERE resolved_at IS NULL
       DO UPDATE SET evidence = payout_reviews.evidence || jsonb_build_array($5::jsonb)
     RETURNING ${COLUMNS}, (xmax = 0) AS opened`,
    [review.reviewId, review.payoutId, review.reason, review.detail, JSON.stringify(review.evidence), review.now],
  );
  const { opened, ...row } = rows[0]!;
  return { row, opened };
}

export async function openReviewOf(db: Queryable, payoutId: string, forUpdate = false): Promise<ReviewRow | undefined> {
  const { rows } = await db.query<ReviewRow>(
    `SELECT ${COLUMNS} FROM payout_reviews WHERE payout_id = $1 AND resolved_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
    [payoutId],
  );
  return rows[0];
}

export async function lockReview(db: Queryable, reviewId: string): Promise<ReviewRow | undefined> {
  const { rows } = await db.query<ReviewRow>(`SELECT ${COLUMNS} FROM payout_reviews WHERE review_id = $1 FOR UPDATE`, [reviewId]);
  return rows[0];
}

export async function closeReview(db: Queryable, reviewId: string, resolution: Resolution, actor: string, note: string, now: Date): Promise<void> {
  const { rowCount } = await db.query(
    'UPDATE payout_reviews SET resolved_at = $2, resolution = $3, resolved_by = $4, note = $5 WHERE review_id = $1 AND resolved_at IS NULL',
    [reviewId, now, resolution, actor, note],
  );
  if (rowCount !== 1) throw new Error(`review ${reviewId} was not open`);
}

/** Reviews, newest first: the open ones only unless `all`. */
export async function listReviews(db: Queryable, options: { all: boolean; limit: number }): Promise<ReviewRow[]> {
  const { rows } = await db.query<ReviewRow>(
    `SELECT ${COLUMNS} FROM payout_reviews ${options.all ? '' : 'WHERE resolved_at IS NULL'} ORDER BY opened_at DESC, review_id LIMIT $1`,
    [options.limit],
  );
  return rows;
}
