// The services mock mode runs for real: the provider catalogue, and the creations whose rules need
// no stored state (payouts, rate locks, settlements). They call the sandbox's own rule functions
// over the sandbox world held as code (world.ts), so they refuse, price and time their answers as
// the sandbox does; they store nothing. Every other operation answers its documented examples.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import type { CreateResult } from '../payouts/create-payout.ts';
import type { CreatePayoutInput } from '../payouts/input.ts';
import { createResponseOf, expiryOf, payoutTerms } from '../payouts/payout-terms.ts';
import { createRatePricer, rateRecord, type RateRecord } from '../settlements/rates.ts';
import type { RateRefusal } from '../settlements/errors.ts';
import type { Result } from '../platform/result.ts';
import { sandboxRateSource } from '../settlements/sandbox-rates.ts';
import { refusalAnswer, settlementTerms, type CreateAnswer, type CreateSettlementInput } from '../settlements/settlement-terms.ts';
import { settlementRecord } from '../settlements/views.ts';
import { createProvidersService } from '../providers/service.ts';
import type { Queryable } from '../platform/database/pool.ts';
import { WORLD_PROVIDERS, worldDirectory, worldPayoutSources } from './world.ts';

/** The catalogue is loaded from code: a query would be a bug. */
const NO_DATABASE: Queryable = { query: () => Promise.reject(new Error('mock mode has no database')) } as unknown as Queryable;

/** The operations answered by the services below (unless the request asks for an example with Prefer). */
export const LIVE_OPERATIONS: ReadonlySet<string> = new Set([
  'GET /v2/payout-providers', 'GET /v2/payout-providers/:payoutProviderId', 'GET /v2/payout-limits',
  'POST /v2/payouts', 'GET /v2/settlement-rates', 'POST /v2/settlements',
]);

export interface MockSettings {
  payoutExpiryHours: number;
  rateLockMinutes: number;
}

type RateResult = Result<RateRecord, RateRefusal>;

export function createMockServices(settings: MockSettings, clock: Clock) {
  const priceRate = createRatePricer({ source: sandboxRateSource, clock, lockMinutes: settings.rateLockMinutes, directory: worldDirectory });

  const payouts = {
    async create(memberId: string, input: CreatePayoutInput): Promise<CreateResult> {
      const checked = await payoutTerms(worldPayoutSources, memberId, input);
      if (!checked.ok) return checked;
      const expiryTime = expiryOf(clock.now(), settings.payoutExpiryHours);
      return { ok: true, value: { body: createResponseOf(randomUUID(), input, checked.value, expiryTime), replayed: false } };
    },
  };

  const rates = {
    async lock(memberId: string, query: { destinationMemberId: string; destinationCcy?: string }): Promise<RateResult> {
      const priced = await priceRate(memberId, query);
      return priced.ok ? { ok: true, value: rateRecord({ ...priced.value, usedBy: null }) } : priced;
    },
  };

  const settlements = {
    /** The rate id cannot be looked up: it is taken for a rate locked now, unused, for the request's destination member. */
    async create(memberId: string, input: CreateSettlementInput): Promise<CreateAnswer> {
      const findRate = async (rateId: string) => {
        const priced = await priceRate(memberId, { destinationMemberId: input.destinationMemberId });
        return priced.ok ? { ...priced.value, rateId, usedBy: null } : undefined;
      };
      const checked = await settlementTerms({ directory: worldDirectory, findRate, clock }, memberId, input);
      return checked.ok ? { ok: true, record: settlementRecord(checked.value), replayed: false } : refusalAnswer(checked.error, checked.detail);
    },
  };

  const providers = createProvidersService({ db: NO_DATABASE, load: async () => WORLD_PROVIDERS });

  return { providers, payouts, rates, settlements };
}
