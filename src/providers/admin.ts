// Operators' changes to the payout provider catalogue (npm run admin -- providers ...). Each change
// is validated (document.ts, then against the destination member), made under the provider's row
// lock and audited (actor, time, what, before/after) in the same transaction. Running service
// processes read the catalogue through a cache of CATALOGUE_TTL_MS (service.ts): a change is
// offered, or withdrawn, everywhere within that time.
import { type Db } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { auditorFor } from '../audit/repo.ts';
import { findMember } from '../members/repo.ts';
import { readProviderDocument, type DocumentError } from './document.ts';
import type { Provider } from './model.ts';
import * as repo from './repo.ts';

export type ProvidersAdminError =
  | DocumentError
  | 'UNKNOWN_DESTINATION_MEMBER'
  | 'UNSUPPORTED_CURRENCY'
  | 'PROVIDER_NOT_FOUND'
  | 'ALREADY_ENABLED'
  | 'ALREADY_DISABLED';
export type ProvidersAdminResult<T> = { ok: true; value: T } | { ok: false; error: ProvidersAdminError; detail?: string };

/** The document shape (what providers set --file takes), with whether it is offered. */
export function providerView(row: repo.ProviderRow) {
  const document: Provider = {
    payoutProviderId: row.payoutProviderId, name: row.name, countryCode: row.countryCode, destinationMemberId: row.destinationMemberId,
    currencies: row.currencies, payoutMethods: row.payoutMethods, segments: row.segments, limits: row.limits, fees: row.fees, fields: row.fields,
  };
  return { ...document, active: row.active, updatedAt: row.updatedAt };
}
export type ProviderView = ReturnType<typeof providerView>;

export function summaryView(row: repo.ProviderRow) {
  return {
    payoutProviderId: row.payoutProviderId, name: row.name, countryCode: row.countryCode, destinationMemberId: row.destinationMemberId,
    currencies: row.currencies, payoutMethods: row.payoutMethods, active: row.active,
  };
}

export function createProvidersAdmin(deps: { db: Db; actor: string }) {
  const audit = auditorFor(deps.actor);

  async function setActive(payoutProviderId: string, active: boolean): Promise<ProvidersAdminResult<ProviderView>> {
    return withTransaction(deps.db, async (client) => {
      const before = await repo.findProviderRow(client, payoutProviderId, true);
      if (!before) return { ok: false, error: 'PROVIDER_NOT_FOUND' };
      if (before.active === active) return { ok: false, error: active ? 'ALREADY_ENABLED' : 'ALREADY_DISABLED' };
      await repo.setProviderActive(client, payoutProviderId, active);
      const after = (await repo.findProviderRow(client, payoutProviderId, false))!;
      await audit(client, active ? 'providers.enable' : 'providers.disable', `provider:${payoutProviderId}`, providerView(before), providerView(after));
      return { ok: true, value: providerView(after) };
    });
  }

  return {
    async list() {
      return (await repo.listAllProviders(deps.db)).map(summaryView);
    },

    async show(payoutProviderId: string): Promise<ProvidersAdminResult<ProviderView>> {
      const row = await repo.findProviderRow(deps.db, payoutProviderId, false);
      return row ? { ok: true, value: providerView(row) } : { ok: false, error: 'PROVIDER_NOT_FOUND' };
    },

    /** Creates the provider (active) or replaces its definition (its active flag kept). */
    async set(document: unknown): Promise<ProvidersAdminResult<ProviderView & { created: boolean }>> {
      const read = readProviderDocument(document);
      if (!read.ok) return read;
      const { provider } = read;
      return withTransaction(deps.db, async (client) => {
        const member = await findMember(client, provider.destinationMemberId);
        if (member?.kind !== 'DESTINATION') return { ok: false, error: 'UNKNOWN_DESTINATION_MEMBER', detail: `destinationMemberId: ${provider.destinationMemberId}` };
        const foreign = provider.currencies.find((c) => !member.currencies.includes(c));
        if (foreign !== undefined) {
          return { ok: false, error: 'UNSUPPORTED_CURRENCY', detail: `currencies: ${member.memberId} holds ${member.currencies.join(', ')}, not ${foreign}` };
        }
        const before = await repo.findProviderRow(client, provider.payoutProviderId, true);
        await repo.upsertProvider(client, provider);
        const after = (await repo.findProviderRow(client, provider.payoutProviderId, false))!;
        await audit(client, 'providers.set', `provider:${provider.payoutProviderId}`, before ? providerView(before) : null, providerView(after));
        return { ok: true, value: { ...providerView(after), created: before === undefined } };
      });
    },

    enable: (payoutProviderId: string) => setActive(payoutProviderId, true),
    disable: (payoutProviderId: string) => setActive(payoutProviderId, false),
  };
}
