// Sandbox controls (CONTRACT section 7), registered in sandbox mode only.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../platform/database/pool.ts';
import { ApiError, errorResponses } from '../platform/http/errors.ts';
import { memberOf } from '../auth/plugin.ts';
import { adjustPrefund, type PrefundError } from './prefund.ts';

const PrefundBody = Type.Object(
  {
    destinationMemberId: Type.String({ pattern: '^[A-Z0-9_]+$', maxLength: 64 }),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    amount: Type.Number({ minimum: -1e12, maximum: 1e12, description: 'Positive credits, negative debits' }),
  },
  { additionalProperties: false, examples: [{ destinationMemberId: 'PARTNER_MX', currency: 'MXN', amount: 250000 }] },
);

const PREFUND_ERRORS: Record<PrefundError['error'], (detail: string) => ApiError> = {
  UNKNOWN_DESTINATION_MEMBER: (d) => new ApiError('UNKNOWN_DESTINATION_MEMBER', 'No corridor to this destination member.', d),
  UNSUPPORTED_CURRENCY: (d) => new ApiError('UNSUPPORTED_CURRENCY', 'The destination member does not hold this currency.', d),
  INSUFFICIENT_PREFUND: (d) => new ApiError('INSUFFICIENT_PREFUND', 'Not enough unreserved prefund for this debit.', d),
  INVALID_AMOUNT: (d) => new ApiError('VALIDATION_ERROR', 'The amount is not valid.', d),
};

export async function sandboxRoutes(app: FastifyInstance, opts: { db: Db }) {
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
      const body = request.body as { destinationMemberId: string; currency: string; amount: number };
      const result = await adjustPrefund(opts.db, { sourceMemberId: memberOf(request).memberId, ...body });
      if (!result.ok) throw PREFUND_ERRORS[result.error](result.detail);
      return result.value;
    },
  );
}
