// The operational figures /metrics reports, read at scrape time (never per request) in one
// round of grouped counts. Each is cheap: small tables, or a grouped count over an indexed column.
import type { Queryable } from '../platform/database/pool.ts';

export interface CountBy {
  label: string;
  count: number;
}

export interface QueueRow {
  task: string;
  depth: number;
  /** Jobs due now (run_at passed) and not permanently failed. */
  due: number;
  /** Seconds since the oldest due job became due; 0 when none is due. */
  oldestDueAgeSeconds: number;
}

export interface LedgerRow {
  currency: string;
  kind: string;
  /** Minor units as exact decimal text (the gauge turns them into a float; see metrics/registry.ts). */
  creditsCommitted: string;
  debitsCommitted: string;
}

export interface OperationalSnapshot {
  queues: QueueRow[];
  payoutsByStatus: CountBy[];
  payoutsInDoubt: number;
  payoutReviewsOpen: number;
  settlementReviewsOpen: number;
  settlementsByStatus: CountBy[];
  webhookDeliveriesByStatus: CountBy[];
  ledger: LedgerRow[];
}

const QUEUE_SQL = `
  SELECT t.identifier AS task, count(*)::int AS depth,
         count(*) FILTER (WHERE j.run_at <= now() AND j.attempts < j.max_attempts)::int AS due,
         coalesce(extract(epoch FROM now() - min(j.run_at) FILTER (WHERE j.run_at <= now() AND j.attempts < j.max_attempts)), 0)::float8 AS age
    FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
   GROUP BY t.identifier`;

async function countBy(db: Queryable, sql: string): Promise<CountBy[]> {
  const { rows } = await db.query<{ label: string; count: number }>(sql);
  return rows.map((row) => ({ label: row.label, count: row.count }));
}

export async function readOperationalSnapshot(db: Queryable): Promise<OperationalSnapshot> {
  // one after another, not in parallel: a scrape holds at most one of the API pool's connections
  const queues = await db.query<{ task: string; depth: number; due: number; age: number }>(QUEUE_SQL);
  const payoutsByStatus = await countBy(db, 'SELECT payout_status AS label, count(*)::int AS count FROM payouts GROUP BY payout_status');
  const doubt = await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM payouts WHERE submission_state = 'IN_DOUBT'`);
  const reviews = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM payout_reviews WHERE resolved_at IS NULL');
  const settlementReviews = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM settlement_reviews WHERE resolved_at IS NULL');
  const settlementsByStatus = await countBy(db, 'SELECT settlement_status AS label, count(*)::int AS count FROM settlements GROUP BY settlement_status');
  const webhookDeliveriesByStatus = await countBy(db, 'SELECT status AS label, count(*)::int AS count FROM webhook_deliveries GROUP BY status');
  const ledger = await db.query<{ currency: string; kind: string; credits: string; debits: string }>(
    `SELECT currency, kind, sum(credits_committed)::text AS credits, sum(debits_committed)::text AS debits
       FROM ledger_accounts GROUP BY currency, kind`,
  );
  return {
    queues: queues.rows.map((row) => ({ task: row.task, depth: row.depth, due: row.due, oldestDueAgeSeconds: row.age })),
    payoutsByStatus,
    payoutsInDoubt: doubt.rows[0]?.count ?? 0,
    payoutReviewsOpen: reviews.rows[0]?.count ?? 0,
    settlementReviewsOpen: settlementReviews.rows[0]?.count ?? 0,
    settlementsByStatus,
    webhookDeliveriesByStatus,
    ledger: ledger.rows.map((row) => ({ currency: row.currency, kind: row.kind, creditsCommitted: row.credits, debitsCommitted: row.debits })),
  };
}
