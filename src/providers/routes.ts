// GET /v2/payout-providers, /v2/payout-providers/{payout-provider-id}, /v2/payout-limits (scope payouts).
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../platform/http/errors.ts';
import { refusalError } from '../platform/http/refusals.ts';
import { typed } from '../platform/http/typed.ts';
import type { Provider } from './model.ts';
import type { ProvidersService } from './service.ts';
import { PROVIDER_REFUSALS } from './errors.ts';
import { LimitList, LimitsQuery, ProviderDetails, ProviderList, ProviderParams, ProvidersQuery } from './schemas.ts';

const summary = (p: Provider) => ({
  payoutProviderId: p.payoutProviderId,
  name: p.name,
  countryCode: p.countryCode,
  destinationMemberId: p.destinationMemberId,
  currencies: p.currencies,
  payoutMethods: p.payoutMethods,
  segments: p.segments,
});

const details = (p: Provider) => ({
  ...summary(p),
  limits: p.limits.map((l) => ({ currency: l.currency, minimumLimit: Number(l.minimumLimit), maximumLimit: Number(l.maximumLimit) })),
  fees: p.fees.map((f) => ({ currency: f.currency, fixedFee: Number(f.fixedFee), percentageFee: Number(f.percentageFee) })),
  fields: p.fields,
});

export async function providerRoutes(fastify: FastifyInstance, opts: { providers: ProvidersService }) {
  const app = typed(fastify);
  const { providers } = opts;

  app.get(
    '/v2/payout-providers',
    {
      config: { scope: 'payouts' },
      schema: {
        summary: 'List payout providers',
        description: 'All providers, or those of one country. An unknown country gives an empty list.',
        tags: ['Payout providers'],
        querystring: ProvidersQuery,
        response: { 200: ProviderList, ...errorResponses(400) },
      },
    },
    async (request) => {
      const { countryCode } = request.query;
      return (await providers.list(countryCode?.toUpperCase())).map(summary);
    },
  );

  app.get(
    '/v2/payout-providers/:payoutProviderId',
    {
      config: { scope: 'payouts' },
      schema: {
        summary: 'Get a payout provider with its limits, fees and field rules',
        description: 'The `fields` are the rules POST /v2/payouts enforces for this provider, each with an example value.',
        tags: ['Payout providers'],
        params: ProviderParams,
        response: { 200: ProviderDetails, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const result = await providers.get(request.params.payoutProviderId);
      if (!result.ok) throw refusalError(PROVIDER_REFUSALS, result);
      return details(result.value);
    },
  );

  app.get(
    '/v2/payout-limits',
    {
      config: { scope: 'payouts' },
      schema: {
        summary: 'Get payout limits',
        description: 'Limits per provider and currency. Give countryCode, payoutProviderId or both (both must match).',
        tags: ['Payout providers'],
        querystring: LimitsQuery,
        response: { 200: LimitList, ...errorResponses(400) },
      },
    },
    async (request) => {
      const result = await providers.limitsFor(request.query);
      if (!result.ok) throw refusalError(PROVIDER_REFUSALS, result);
      return result.value.map((r) => ({ ...r, minimumLimit: Number(r.minimumLimit), maximumLimit: Number(r.maximumLimit) }));
    },
  );
}
