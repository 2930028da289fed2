// GET /v2/payouts (scope payouts): the caller's payouts, a page at a time.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../platform/database/pool.ts';
import { errorResponses } from '../platform/http/errors.ts';
import { refusalError } from '../platform/http/refusals.ts';
import { typed } from '../platform/http/typed.ts';
import { assertPagingDefaults } from '../platform/schema.ts';
import { memberOf } from '../auth/plugin.ts';
import { listPayouts } from './list-payouts.ts';
import { PAYOUT_REFUSALS } from './errors.ts';
import { PAGE_SIZE_MAX, PayoutList, PayoutListQuery } from './list-schemas.ts';

const DESCRIPTION =
  `Your payouts, each as GET /v2/payouts/{payoutId} shows it. \`size\` is 1 to ${PAGE_SIZE_MAX} (default 10), \`page\` starts at 0; ` +
  'a page past the end is an empty list. Default order: `creationTime desc`. `sortDirection` accepts any case. ' +
  'Text fields sort case-insensitively (by their lower-case form, in Unicode code point order); empty values (none or "") ' +
  'come last in both directions. Ties are broken by `creationTime`, then `payoutId`, both in the requested direction, so ' +
  'asc lists the same payouts as desc in reverse (empty values aside). Filters combine with AND: `creationTime` and ' +
  '`completionTime` match the UTC day; `senderName` and `beneficiaryName` match any part of the full name (names joined by ' +
  'single spaces), case-insensitively, `%` and `_` being ordinary characters; `beneficiaryCountry` takes the alpha-2 or the ' +
  'ISO 3166-1 numeric code (484 = MX).';

export async function payoutListRoutes(fastify: FastifyInstance, opts: { db: Db }) {
  const app = typed(fastify);
  app.get('/v2/payouts', {
    config: { scope: 'payouts' },
    schema: {
      summary: 'List payouts',
      description: DESCRIPTION,
      tags: ['Payouts'],
      querystring: PayoutListQuery,
      response: { 200: PayoutList, ...errorResponses(400) },
    },
  }, async (request) => {
    const { query } = request;
    assertPagingDefaults(query);
    const result = await listPayouts(opts.db, memberOf(request).memberId, query);
    if (!result.ok) throw refusalError(PAYOUT_REFUSALS, result);
    return result.value;
  });
}
