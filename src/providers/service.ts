// Reading the provider catalogue. The catalogue changes rarely and is read on every payout
// creation, so it is kept in memory for a few seconds.
import type { Queryable } from '../platform/database/pool.ts';
import type { Provider } from './model.ts';
import * as repo from './repo.ts';
import { ok, refuse, type Result } from '../platform/result.ts';
import type { ProviderRefusal } from './errors.ts';

export const CATALOGUE_TTL_MS = 5000;

export interface LimitRow {
  payoutProviderId: string;
  currency: string;
  minimumLimit: string;
  maximumLimit: string;
}

export interface ProvidersDeps {
  db: Queryable;
  now?: () => number;
  /** Where the catalogue comes from: the database unless given (mock mode reads the sandbox catalogue's code). */
  load?: () => Promise<Provider[]>;
}

export function createProvidersService(deps: ProvidersDeps) {
  const now = deps.now ?? Date.now;
  const load = deps.load ?? (() => repo.listProviders(deps.db));
  let cached: { providers: Provider[]; loadedAtMs: number } | undefined;

  async function all(): Promise<Provider[]> {
    if (!cached || now() - cached.loadedAtMs >= CATALOGUE_TTL_MS) {
      cached = { providers: await load(), loadedAtMs: now() };
    }
    return cached.providers;
  }

  /** Limits of every provider matching both filters that are given. */
  async function limitsOf(filter: { countryCode?: string; payoutProviderId?: string }): Promise<LimitRow[]> {
    const providers = (await all()).filter(
      (p) =>
        (filter.countryCode === undefined || p.countryCode === filter.countryCode) &&
        (filter.payoutProviderId === undefined || p.payoutProviderId === filter.payoutProviderId),
    );
    return providers.flatMap((p) => p.limits.map((l) => ({ payoutProviderId: p.payoutProviderId, ...l })));
  }

  return {
    async list(countryCode?: string): Promise<Provider[]> {
      const providers = await all();
      return countryCode === undefined ? providers : providers.filter((p) => p.countryCode === countryCode);
    },

    async find(payoutProviderId: string): Promise<Provider | undefined> {
      return (await all()).find((p) => p.payoutProviderId === payoutProviderId);
    },

    /** One provider, or UNKNOWN_PROVIDER. */
    async get(payoutProviderId: string): Promise<Result<Provider, ProviderRefusal>> {
      const provider = (await all()).find((p) => p.payoutProviderId === payoutProviderId);
      return provider ? ok(provider) : refuse('UNKNOWN_PROVIDER', `payoutProviderId: ${payoutProviderId}`);
    },

    /** Limits for a query that names a country, a provider or both (case-insensitive); at least one is required. */
    async limitsFor(query: { countryCode?: string; payoutProviderId?: string }): Promise<Result<LimitRow[], ProviderRefusal>> {
      const countryCode = query.countryCode ? query.countryCode.toUpperCase() : undefined;
      const payoutProviderId = query.payoutProviderId ? query.payoutProviderId.toUpperCase() : undefined;
      if (countryCode === undefined && payoutProviderId === undefined) return refuse('LIMITS_FILTER_MISSING');
      return ok(await limitsOf({ ...(countryCode ? { countryCode } : {}), ...(payoutProviderId ? { payoutProviderId } : {}) }));
    },

    /** Forget the cached catalogue (after an operator changed it in this process). */
    invalidate(): void {
      cached = undefined;
    },
  };
}

export type ProvidersService = ReturnType<typeof createProvidersService>;
