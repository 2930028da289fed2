// Sandbox controls (CONTRACT section 7), registered in sandbox mode only.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../platform/database/pool.ts';
import { errorResponses } from '../platform/http/errors.ts';
import { refusalError } from '../platform/http/refusals.ts';
import { typed } from '../platform/http/typed.ts';
import { memberOf } from '../auth/plugin.ts';
import { adjustPrefund } from './prefund.ts';
import { PREFUND_REFUSALS } from './errors.ts';

const PrefundBody = Type.Object(
  {
    destinationMemberId: Type.String({ pattern: '^[A-Z0-9_]+$', maxLength: 64 }),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    amount: Type.Number({ minimum: -1e12, maximum: 1e12, description: 'Positive credits, negative debits' }),
  },
  { additionalProperties: false, examples: [{ destinationMemberId: 'PARTNER_MX', currency: 'MXN', amount: 250000 }] },
);

export async function sandboxRoutes(fastify: FastifyInstance, opts: { db: Db }) {
  const app = typed(fastify);
  app.post(
    '/v2/sandbox/prefund',
    {
      config: { scope: 'member' },
      schema: {
        summary: 'Sandbox: credit or debit your prefund',
        description: 'Credits (or, with a negative amount, debits) the caller\'s prefund at a destination member; never below what is reserved.',
        tags: ['Sandbox'],
        body: PrefundBody,
        response: { 200: Type.Ref('DestinationMember'), ...errorResponses(400, 413, 415, 422, 503) },
      },
    },
    async (request) => {
      const result = await adjustPrefund(opts.db, { sourceMemberId: memberOf(request).memberId, ...request.body });
      if (!result.ok) throw refusalError(PREFUND_REFUSALS, result);
      return result.value;
    },
  );
}
