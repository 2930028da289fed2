// Prometheus metrics (prom-client): HTTP requests by route pattern, the database pools, and the
// operational figures of metrics/repo.ts, read at scrape time through a short cache.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../platform/database/pool.ts';
import { readOperationalSnapshot, type OperationalSnapshot } from './repo.ts';

/** How long one reading of the database figures serves scrapes: a busy scraper costs a query round per this. */
export const SNAPSHOT_CACHE_MS = 5000;
const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Distinct (method, route, status) series kept; beyond it a request counts under route "other". */
const HTTP_SERIES_MAX = 2000;

export interface MetricsOptions {
  /** The pool the figures are read from (the API's). */
  db: Db;
  /** Every pool of the process by name (api, worker, webhooks): its clients are reported. */
  pools: Record<string, Db>;
  nowMs?: () => number;
}

export interface HttpObservation {
  method: string;
  /** The route pattern (/v2/payouts/:payoutId), never the raw URL. */
  route: string;
  statusCode: number;
  elapsedSeconds: number;
}

export interface Metrics {
  registry: Registry;
  observeRequest(observation: HttpObservation): void;
  render(): Promise<string>;
}

interface HttpSeries {
  count: { inc(): void };
  latency: { observe(value: number): void };
}

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let readFailures = 0;
  const snapshots = snapshotCache(options.db, options.nowMs ?? Date.now, () => readFailures++);
  new Counter({
    name: 'metrics_database_read_failures_total', help: 'Scrapes whose database figures could not be read (the last good reading was reported)', registers: [registry],
    // metrics are collected in parallel: this one waits for the scrape's reading to count its outcome
    async collect() {
      await snapshots();
      this.reset();
      this.inc(readFailures);
    },
  });
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by method, route pattern and status code', labelNames: ['method', 'route', 'status_code'], registers: [registry] });
  const latency = new Histogram({ name: 'http_request_duration_seconds', help: 'HTTP request latency, by method, route pattern and status code', labelNames: ['method', 'route', 'status_code'], buckets: LATENCY_BUCKETS_SECONDS, registers: [registry] });
  const errors = new Counter({ name: 'http_server_errors_total', help: 'HTTP requests answered with a 5xx, by method and route pattern', labelNames: ['method', 'route'], registers: [registry] });
  registerPoolGauges(registry, options.pools);
  registerSnapshotGauges(registry, snapshots);
  // the children per label set are cached: a request costs two map lookups, not label hashing
  const series = new Map<string, HttpSeries>();
  return {
    registry,
    observeRequest({ method, route, statusCode, elapsedSeconds }) {
      let key = `${method} ${route} ${statusCode}`;
      let entry = series.get(key);
      if (entry === undefined) {
        const routeLabel = series.size < HTTP_SERIES_MAX ? route : 'other';
        key = `${method} ${routeLabel} ${statusCode}`;
        entry = series.get(key) ?? {
          count: requests.labels(method, routeLabel, String(statusCode)),
          latency: latency.labels(method, routeLabel, String(statusCode)),
        };
        series.set(key, entry);
      }
      entry.count.inc();
      entry.latency.observe(elapsedSeconds);
      if (statusCode >= 500) errors.labels(method, route).inc();
    },
    render: () => registry.metrics(),
  };
}

function registerPoolGauges(registry: Registry, pools: Record<string, Db>): void {
  const gauge = (name: string, help: string, read: (pool: Db) => number) =>
    new Gauge({
      name, help, labelNames: ['pool'], registers: [registry],
      collect() {
        for (const [poolName, pool] of Object.entries(pools)) this.set({ pool: poolName }, read(pool));
      },
    });
  gauge('db_pool_clients_total', 'Database connections open, per pool', (pool) => pool.totalCount);
  gauge('db_pool_clients_idle', 'Database connections idle, per pool', (pool) => pool.idleCount);
  gauge('db_pool_clients_waiting', 'Queries waiting for a connection, per pool', (pool) => pool.waitingCount);
}

/**
 * One reading at a time, reused for SNAPSHOT_CACHE_MS. A failed reading (the database is away) is
 * counted and not cached, and the last good reading stands in (none before the first): the scrape
 * still answers, with the HTTP and pool figures an outage needs most.
 */
function snapshotCache(db: Db, nowMs: () => number, onFailure: () => void): () => Promise<OperationalSnapshot | undefined> {
  let cached: { atMs: number; value: Promise<OperationalSnapshot | undefined> } | undefined;
  let lastGood: OperationalSnapshot | undefined;
  return () => {
    if (cached === undefined || nowMs() - cached.atMs >= SNAPSHOT_CACHE_MS) {
      const entry: { atMs: number; value: Promise<OperationalSnapshot | undefined> } = { atMs: nowMs(), value: Promise.resolve(undefined) };
      entry.value = readOperationalSnapshot(db).then(
        (snapshot) => (lastGood = snapshot),
        () => {
          onFailure();
          if (cached === entry) cached = undefined;
          return lastGood;
        },
      );
      cached = entry;
    }
    return cached.value;
  };
}

type Read = (snapshot: OperationalSnapshot, set: (labels: Record<string, string>, value: number) => void) => void;

function registerSnapshotGauges(registry: Registry, snapshot: () => Promise<OperationalSnapshot | undefined>): void {
  const gauge = (name: string, help: string, labelNames: string[], read: Read) =>
    new Gauge({
      name, help, labelNames, registers: [registry],
      async collect() {
        const value = await snapshot();
        this.reset(); // a label set that vanished (an empty queue) is not reported stale
        if (value !== undefined) read(value, (labels, figure) => this.set(labels, figure));
      },
    });
  gauge('job_queue_depth', 'Jobs in the queue (due, scheduled or failing), per task', ['task'], (s, set) => s.queues.forEach((q) => set({ task: q.task }, q.depth)));
  gauge('job_queue_due', 'Jobs due now and not permanently failed, per task', ['task'], (s, set) => s.queues.forEach((q) => set({ task: q.task }, q.due)));
  gauge('job_queue_oldest_due_age_seconds', 'How long the oldest due job has waited, per task', ['task'], (s, set) => s.queues.forEach((q) => set({ task: q.task }, q.oldestDueAgeSeconds)));
  gauge('payouts', 'Payouts per status', ['status'], (s, set) => s.payoutsByStatus.forEach((row) => set({ status: row.label }, row.count)));
  gauge('payouts_in_doubt', 'Payouts whose partner call had no clear answer, waiting to be resolved', [], (s, set) => set({}, s.payoutsInDoubt));
  gauge('payout_reviews_open', 'Payouts parked for an operator (open payout reviews)', [], (s, set) => set({}, s.payoutReviewsOpen));
  gauge('settlement_reviews_open', 'Settlements parked for an operator (open settlement reviews)', [], (s, set) => set({}, s.settlementReviewsOpen));
  gauge('settlements', 'Settlements per status', ['status'], (s, set) => s.settlementsByStatus.forEach((row) => set({ status: row.label }, row.count)));
  gauge('webhook_deliveries', 'Webhook deliveries per status (PENDING is the backlog, FAILED the given-up ones)', ['status'], (s, set) => s.webhookDeliveriesByStatus.forEach((row) => set({ status: row.label }, row.count)));
  // Exposition is floating point: totals above 2^53 minor units lose their last digits here (never in the ledger).
  gauge('ledger_credits_committed_minor_units', 'Ledger credits committed (pending and posted), per currency and account kind, in minor units', ['currency', 'kind'], (s, set) => s.ledger.forEach((row) => set({ currency: row.currency, kind: row.kind }, Number(row.creditsCommitted))));
  gauge('ledger_debits_committed_minor_units', 'Ledger debits committed (pending and posted), per currency and account kind, in minor units', ['currency', 'kind'], (s, set) => s.ledger.forEach((row) => set({ currency: row.currency, kind: row.kind }, Number(row.debitsCommitted))));
}
