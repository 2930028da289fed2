// SQL for the payout provider catalogue.
import type { Queryable } from '../platform/database/pool.ts';
import type { Provider } from './model.ts';

const COLUMNS = `payout_provider_id AS "payoutProviderId", name, country_code AS "countryCode",
  destination_member_id AS "destinationMemberId", currencies, payout_methods AS "payoutMethods", segments,
  limits, fees, fields`;

export async function listProviders(db: Queryable, countryCode?: string): Promise<Provider[]> {
  const { rows } = await db.query<Provider>(
    `SELECT ${COLUMNS} FROM payout_providers WHERE active AND ($1::text IS NULL OR country_code = $1) ORDER BY payout_provider_id`,
    [countryCode ?? null],
  );
  return rows;
}

export async function findProvider(db: Queryable, payoutProviderId: string): Promise<Provider | undefined> {
  const { rows } = await db.query<Provider>(`SELECT ${COLUMNS} FROM payout_providers WHERE active AND payout_provider_id = $1`, [payoutProviderId]);
  return rows[0];
}

/** Adds a provider or replaces its definition. */
export async function upsertProvider(db: Queryable, provider: Provider): Promise<void> {
  await db.query(
    `INSERT INTO payout_providers (payout_provider_id, name, country_code, destination_member_id, currencies, payout_methods, segments, limits, fees, fields)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (payout_provider_id) DO UPDATE SET name = EXCLUDED.name, country_code = EXCLUDED.country_code,
       destination_member_id = EXCLUDED.destination_member_id, currencies = EXCLUDED.currencies,
       payout_methods = EXCLUDED.payout_methods, segments = EXCLUDED.segments, limits = EXCLUDED.limits,
       fees = EXCLUDED.fees, fields = EXCLUDED.fields, updated_at = now()`,
    [
      provider.payoutProviderId, provider.name, provider.countryCode, provider.destinationMemberId, provider.currencies,
      provider.payoutMethods, provider.segments, JSON.stringify(provider.limits), JSON.stringify(provider.fees), JSON.stringify(provider.fields),
    ],
  );
}

/** A provider as operators see it: the catalogue's record and whether it is offered (active). */
export type ProviderRow = Provider & { active: boolean; updatedAt: Date };

export async function listAllProviders(db: Queryable): Promise<ProviderRow[]> {
  const { rows } = await db.query<ProviderRow>(`SELECT ${COLUMNS}, active, updated_at AS "updatedAt" FROM payout_providers ORDER BY payout_provider_id`);
  return rows;
}

/** The provider's row whether active or not, locked until the transaction ends when `lock`. */
export async function findProviderRow(db: Queryable, payoutProviderId: string, lock: boolean): Promise<ProviderRow | undefined> {
  const { rows } = await db.query<ProviderRow>(
    `SELECT ${COLUMNS}, active, updated_at AS "updatedAt" FROM payout_providers WHERE payout_provider_id = $1${lock ? ' FOR UPDATE' : ''}`,
    [payoutProviderId],
  );
  return rows[0];
}

export async function setProviderActive(db: Queryable, payoutProviderId: string, active: boolean): Promise<void> {
  await db.query('UPDATE payout_providers SET active = $2, updated_at = now() WHERE payout_provider_id = $1', [payoutProviderId, active]);
}
