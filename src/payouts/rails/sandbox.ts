// The sandbox rails: simulated partners. Bank and wallet partners confirm at once; cash pickup
// answers PENDING with READY_FOR_PICKUP until a partner report (POST /v2/sandbox/payouts/{id}/simulate)
// says it was picked up. A beneficiary whose lastName is REJECT is refused by the partner.
// Each simulated partner remembers its answers (sandbox_rail_submissions), so a resubmission of
// the same payout id gets the first answer again and counts as no new payment.
import type { Queryable } from '../../platform/database/pool.ts';
import { createBatcher } from '../../platform/batcher.ts';
import { statusOfSubmit, type CancelOutcome, type PartnerStatus, type PayoutForRail, type PayoutRail, type RailRegistry, type SubmitOutcome } from './rail.ts';

export const REJECTING_LAST_NAME = 'REJECT';

function decide(payout: PayoutForRail): SubmitOutcome {
  if (payout.beneficiary['lastName'] === REJECTING_LAST_NAME) return { outcome: 'REJECTED', reason: 'Beneficiary account closed (sandbox)' };
  if (payout.payoutMethod === 'CASH_PICKUP') return { outcome: 'PENDING', cashoutStatus: 'READY_FOR_PICKUP' };
  return { outcome: 'CONFIRMED' };
}

/** The answer to a submission of an id that was cancelled before it arrived: never paid. */
const BLOCKED: SubmitOutcome = { outcome: 'REJECTED', reason: 'Cancelled before it was received' };

function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    }, { once: true });
  });
}

/**
 * The simulated partners' memory is their own affair, not the service's books: it commits without
 * waiting for the disk (synchronous_commit off for the statement's transaction), and submissions
 * arriving together are recorded together. A payout asked for twice in one batch counts twice.
 */
async function recordSubmissions(db: Queryable, payouts: PayoutForRail[]): Promise<SubmitOutcome[]> {
  const asks = new Map<string, { outcome: SubmitOutcome; count: number }>();
  for (const payout of payouts) {
    const seen = asks.get(payout.payoutId);
    if (seen) seen.count++;
    else asks.set(payout.payoutId, { outcome: decide(payout), count: 1 });
  }
  const { rows } = await db.query<{ payoutId: string; outcome: SubmitOutcome }>({
    name: 'sandbox-rail-submit',
    text: `WITH settings AS (SELECT set_config('synchronous_commit', 'off', true))
           INSERT INTO sandbox_rail_submissions (payout_id, outcome, submissions)
           SELECT i.payout_id, i.outcome, i.asks FROM unnest($1::uuid[], $2::jsonb[], $3::int[]) AS i(payout_id, outcome, asks), settings
           ON CONFLICT (payout_id) DO UPDATE SET submissions = sandbox_rail_submissions.submissions + excluded.submissions
           RETURNING payout_id AS "payoutId", COALESCE(outcome, $4::jsonb) AS outcome`,
    values: [[...asks.keys()], [...asks.values()].map((a) => JSON.stringify(a.outcome)), [...asks.values()].map((a) => a.count), JSON.stringify(BLOCKED)],
  });
  const answered = new Map(rows.map((r) => [r.payoutId, r.outcome]));
  return payouts.map((p) => answered.get(p.payoutId)!);
}

export function createSandboxRails(deps: { db: Queryable; latencyMs?: number }): RailRegistry {
  const submissions = createBatcher<PayoutForRail, SubmitOutcome>({
    run: (payouts) => recordSubmissions(deps.db, payouts),
    batchSizeMax: 200,
    concurrencyMax: 2,
  });
  const rail: PayoutRail = {
    async submit(payout, signal) {
      await delay(deps.latencyMs ?? 0, signal);
      return submissions.submit(payout);
    },
    async status(payout, signal): Promise<PartnerStatus> {
      await delay(deps.latencyMs ?? 0, signal);
      const { rows } = await deps.db.query<{ outcome: SubmitOutcome | null; cancelled: boolean }>(
        'SELECT outcome, cancelled FROM sandbox_rail_submissions WHERE payout_id = $1',
        [payout.payoutId],
      );
      const known = rows[0];
      if (!known) return { status: 'NOT_FOUND' };
      if (known.cancelled) return { status: 'CANCELLED' };
      return statusOfSubmit(known.outcome!);
    },
    async cancel(payout, signal): Promise<CancelOutcome> {
      await delay(deps.latencyMs ?? 0, signal);
      // an id never received is remembered as cancelled, so that a later submission of it is refused
      const { rows } = await deps.db.query<{ outcome: SubmitOutcome | null }>(
        `INSERT INTO sandbox_rail_submissions (payout_id, outcome, submissions, cancelled) VALUES ($1, NULL, 0, true)
         ON CONFLICT (payout_id) DO UPDATE SET cancelled = sandbox_rail_submissions.outcome->>'outcome' = 'PENDING'
                                                   OR sandbox_rail_submissions.cancelled
         RETURNING outcome`,
        [payout.payoutId],
      );
      const outcome = rows[0]!.outcome;
      if (outcome?.outcome === 'CONFIRMED') return { outcome: 'ALREADY_PAID', ...(outcome.cashoutStatus ? { cashoutStatus: outcome.cashoutStatus } : {}) };
      if (outcome?.outcome === 'REJECTED') return { outcome: 'ALREADY_FINAL', status: 'REJECTED', reason: outcome.reason };
      return { outcome: 'CANCELLED' };
    },
  };
  return { railFor: () => rail };
}
