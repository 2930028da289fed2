// GET /v2/settlement-rates: every call locks a new rate for the caller's corridor to a destination
// member: the source's mid-market forecast for each execution interval, less the corridor's
// spread, fixed until expiryTime and good for one settlement.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/database/pool.ts';
import { decimalToJsonNumber, divideHalfUp, formatScaled } from '../platform/money.ts';
import { createDirectory, type Directory } from '../members/directory.ts';
import { EXECUTION_INTERVALS } from './intervals.ts';
import { RATE_DECIMALS, assertQuote, type RateSource } from './rate-source.ts';
import * as repo from './repo.ts';
import { createBatcher } from '../platform/batcher.ts';
import { ok, refuse, type Result } from '../platform/result.ts';
import type { RateRefusal } from './errors.ts';


export interface RateRecord {
  rateId: string;
  sourceMemberId: string;
  destinationMemberId: string;
  sourceCcy: string;
  destinationCcy: string;
  rate: number;
  expiryTime: string;
  forecastRates: Array<{ executionInterval: string; rate: number }>;
}

export interface RatesDeps {
  db: Db;
  source: RateSource;
  clock: Clock;
  lockMinutes: number;
  directory?: Directory;
}

const BPS = 10_000n;

export function rateRecord(row: repo.RateRow): RateRecord {
  return {
    rateId: row.rateId,
    sourceMemberId: row.sourceMemberId,
    destinationMemberId: row.destinationMemberId,
    sourceCcy: row.sourceCcy,
    destinationCcy: row.destinationCcy,
    rate: decimalToJsonNumber(row.forecastRates[0]!),
    expiryTime: row.expiryTime.toISOString(),
    forecastRates: EXECUTION_INTERVALS.map((executionInterval, i) => ({ executionInterval, rate: decimalToJsonNumber(row.forecastRates[i]!) })),
  };
}


/** Rate locks arriving together are recorded together (platform/batcher.ts). */
const LOCK_BATCH_SIZE_MAX = 100;
const LOCK_BATCH_CONCURRENCY_MAX = 2;

export type NewRate = Omit<repo.RateRow, 'usedBy'>;

export interface RatePricerDeps {
  source: RateSource;
  clock: Clock;
  lockMinutes: number;
  directory: Directory;
}

/**
 * The checks of a rate lock that need no stored rate, and the rate itself (the source's forecast
 * less the corridor's spread, expiring lockMinutes from now). The service records it; mock mode
 * answers it as it is.
 */
export function createRatePricer(deps: RatePricerDeps) {
  const { directory } = deps;
  return async function price(memberId: string, query: { destinationMemberId: string; destinationCcy?: string }): Promise<Result<NewRate, RateRefusal>> {
    const destination = await directory.member(query.destinationMemberId);
    if (destination?.kind !== 'DESTINATION') {
      return refuse('UNKNOWN_DESTINATION_MEMBER', `destinationMemberId: ${query.destinationMemberId} is not a destination member`);
    }
    const currency = query.destinationCcy ?? (destination.currencies.length === 1 ? destination.currencies[0] : undefined);
    if (currency === undefined) {
      return refuse('VALIDATION_ERROR', `destinationCcy: required, ${destination.memberId} settles in ${destination.currencies.join(', ')}`);
    }
    if (!destination.currencies.includes(currency)) {
      return refuse('UNSUPPORTED_CURRENCY', `destinationCcy: ${destination.memberId} settles in ${destination.currencies.join(', ')}`);
    }
    const corridor = (await directory.corridors(memberId, destination.memberId)).find((c) => c.destinationCcy === currency);
    if (!corridor?.active) return refuse('CORRIDOR_INACTIVE', `destinationMemberId: no active corridor to ${destination.memberId} in ${currency}`);
    const now = deps.clock.now();
    const quoted = await deps.source.quote(corridor.sourceCcy, currency, now);
    if (!quoted.ok) {
      return quoted.error === 'NOT_QUOTED'
        ? refuse('NOT_QUOTED', `${corridor.sourceCcy}/${currency} is not quoted right now`)
        : refuse('RATE_SOURCE_UNAVAILABLE', `rate: ${quoted.detail}`, quoted.retryAfterSeconds);
    }
    const quote = quoted.value;
    const forecast = assertQuote(quote).forecast.map((mid) => divideHalfUp(mid * (BPS - BigInt(corridor.rateSpreadBps)), BPS));
    return ok({
      rateId: randomUUID(),
      sourceMemberId: memberId,
      destinationMemberId: destination.memberId,
      sourceCcy: corridor.sourceCcy,
      destinationCcy: currency,
      forecastRates: forecast.map((r) => formatScaled(r, RATE_DECIMALS)),
      midRate: formatScaled(quote.forecast[0]!, RATE_DECIMALS),
      spreadBps: corridor.rateSpreadBps,
      createdAt: now,
      expiryTime: new Date(now.getTime() + deps.lockMinutes * 60_000),
    });
  };
}

export function createRatesService(deps: RatesDeps) {
  const directory = deps.directory ?? createDirectory(deps.db, deps.clock);
  const price = createRatePricer({ ...deps, directory });
  const locks = createBatcher<NewRate, repo.RateRow>({
    run: async (rates) => {
      const inserted = await repo.insertRates(deps.db, rates);
      return rates.map((r) => inserted.get(r.rateId)!);
    },
    batchSizeMax: LOCK_BATCH_SIZE_MAX,
    concurrencyMax: LOCK_BATCH_CONCURRENCY_MAX,
  });
  return {
    async lock(memberId: string, query: { destinationMemberId: string; destinationCcy?: string }): Promise<Result<RateRecord, RateRefusal>> {
      const priced = await price(memberId, query);
      if (!priced.ok) return priced;
      return ok(rateRecord(await locks.submit(priced.value)));
    },

    /** Sandbox: the lock ends now. */
    async expire(memberId: string, rateId: string): Promise<RateRecord | undefined> {
      const row = await repo.expireRate(deps.db, memberId, rateId, deps.clock.now());
      return row && rateRecord(row);
    },
  };
}

export type RatesService = ReturnType<typeof createRatesService>;
