// The payout area's use cases, wired to their dependencies.
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/database/pool.ts';
import type { ProvidersService } from '../providers/service.ts';
import type { Directory } from '../members/directory.ts';
import { createPayoutCreator } from './create-payout.ts';
import { createPayoutProcessor } from './process-payout.ts';
import { requestCancellation } from './cancel-payout.ts';
import { applyPartnerReport, type PartnerReport } from './partner-report.ts';
import type { RailRegistry } from './rails/rail.ts';
import type { Alarm } from './review.ts';
import * as repo from './repo.ts';
import { payoutRecord, statusView } from './views.ts';
import { ok, refuse } from '../platform/result.ts';

export interface PayoutSettings {
  expiryHours: number;
  partnerTimeoutMs: number;
}

export interface PayoutsDeps {
  db: Db;
  alarm: Alarm;
  providers: ProvidersService;
  rails: RailRegistry;
  clock: Clock;
  settings: PayoutSettings;
  directory?: Directory;
}

export function createPayoutsService(deps: PayoutsDeps) {
  const creator = createPayoutCreator({
    db: deps.db, providers: deps.providers, clock: deps.clock, expiryHours: deps.settings.expiryHours, directory: deps.directory,
  });
  const processor = createPayoutProcessor({
    db: deps.db, rails: deps.rails, clock: deps.clock, alarm: deps.alarm,
    partnerTimeoutMs: deps.settings.partnerTimeoutMs,
  });
  return {
    create: creator.create,
    process: processor.process,
    cancel: (memberId: string, payoutId: string, reason: string) => requestCancellation(deps.db, memberId, payoutId, reason),

    async get(memberId: string, payoutId: string) {
      const row = await repo.findPayout(deps.db, memberId, payoutId);
      return row && payoutRecord(row);
    },

    async status(memberId: string, payoutId: string) {
      const row = await repo.findPayout(deps.db, memberId, payoutId);
      return row && statusView(row);
    },

    /** Sandbox: a partner report for one of the caller's payouts, through the real path. */
    async simulate(memberId: string, payoutId: string, report: PartnerReport) {
      const own = await repo.findPayout(deps.db, memberId, payoutId);
      if (!own) return refuse('NOT_FOUND', `payoutId: ${payoutId}`);
      const result = await applyPartnerReport(deps, payoutId, report, 'SANDBOX');
      if (result.ok) return ok(payoutRecord(result.row));
      if (result.error === 'NOT_FOUND') return refuse('NOT_FOUND', `payoutId: ${payoutId}`);
      if (result.error === 'IN_FLIGHT') return refuse('INVALID_STATE', `payoutStatus: ${result.row.payoutStatus} (a submission to the partner is under way)`);
      return refuse('INVALID_STATE', `payoutStatus: ${result.row.payoutStatus} cannot become ${report.payoutStatus}`);
    },
  };
}

export type PayoutsService = ReturnType<typeof createPayoutsService>;
