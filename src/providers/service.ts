// Reading the provider catalogue. The catalogue changes rarely and is read on every payout
// creation, so it is kept in memory for a few seconds.
import type { Queryable } from '../platform/database/pool.ts';
import type { Provider } from './model.ts';
import * as repo from './repo.ts';

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

  return {
    async list(countryCode?: string): Promise<Provider[]> {
      const providers = await all();
      return countryCode === undefined ? providers : providers.filter((p) => p.countryCode === countryCode);
    },

    async find(payoutProviderId: string): Promise<Provider | undefined> {
      return (await all()).find((p) => p.payoutProviderId === payoutProviderId);
    },

    /** Limits of every provider matching both filters that are given. */
    async limits(filter: { countryCode?: string; payoutProviderId?: string }): Promise<LimitRow[]> {
      const providers = (await all()).filter(
        (p) =>
          (filter.countryCode === undefined || p.countryCode === filter.countryCode) &&
          (filter.payoutProviderId === undefined || p.payoutProviderId === filter.payoutProviderId),
      );
      return providers.flatMap((p) => p.limits.map((l) => ({ payoutProviderId: p.payoutProviderId, ...l })));
    },

    /** Forget the cached catalogue (after an operator changed it in this process). */
    invalidate(): void {
      cached = undefined;
    },
  };
}

export type ProvidersService = ReturnType<typeof createProvidersService>;
