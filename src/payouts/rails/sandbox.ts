// The sandbox rails: simulated partners. Bank and wallet partners confirm at once; cash pickup
// answers PENDING with READY_FOR_PICKUP until a partner report (POST /v2/sandbox/payouts/{id}/simulate)
// says it was picked up. A beneficiary whose lastName is REJECT is refused by the partner.
// Each simulated partner remembers its answers (sandbox_rail_submissions), so a resubmission of
// the same payout id gets the first answer again and counts as no new payment.
import type { Queryable } from '../../platform/database/pool.ts';
import type { CancelOutcome, PayoutForRail, PayoutRail, RailRegistry, SubmitOutcome } from './rail.ts';

export const REJECTING_LAST_NAME = 'REJECT';

function decide(payout: PayoutForRail): SubmitOutcome {
  if (payout.beneficiary['lastName'] === REJECTING_LAST_NAME) return { outcome: 'REJECTED', reason: 'Beneficiary account closed (sandbox)' };
  if (payout.payoutMethod === 'CASH_PICKUP') return { outcome: 'PENDING', cashoutStatus: 'READY_FOR_PICKUP' };
  return { outcome: 'CONFIRMED' };
}

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

export function createSandboxRails(deps: { db: Queryable; latencyMs?: number }): RailRegistry {
  const rail: PayoutRail = {
    async submit(payout, signal) {
      await delay(deps.latencyMs ?? 0, signal);
      // The simulated partner's memory is its own affair, not the service's books: it commits
      // without waiting for the disk (synchronous_commit off for this statement's transaction).
      const { rows } = await deps.db.query<{ outcome: SubmitOutcome }>({
        name: 'sandbox-rail-submit',
        text: `WITH settings AS (SELECT set_config('synchronous_commit', 'off', true))
               INSERT INTO sandbox_rail_submissions (payout_id, outcome) SELECT $1, $2 FROM settings
               ON CONFLICT (payout_id) DO UPDATE SET submissions = sandbox_rail_submissions.submissions + 1
               RETURNING outcome`,
        values: [payout.payoutId, JSON.stringify(decide(payout))],
      });
      return rows[0]!.outcome;
    },
    async cancel(payout, signal): Promise<CancelOutcome> {
      await delay(deps.latencyMs ?? 0, signal);
      await deps.db.query('UPDATE sandbox_rail_submissions SET cancelled = true WHERE payout_id = $1', [payout.payoutId]);
      return { outcome: 'CANCELLED' };
    },
  };
  return { railFor: () => rail };
}
