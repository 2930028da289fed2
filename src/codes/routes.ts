// GET /v2/source-of-funds-codes, /v2/purpose-codes, /v2/relationship-codes (scope payouts).
import type { FastifyInstance } from 'fastify';
import { CodeList } from './schemas.ts';
import { PURPOSE_CODES, RELATIONSHIP_CODES, SOURCE_OF_FUNDS_CODES, type CodeEntry } from './lists.ts';

const LISTS: Array<{ path: string; list: readonly CodeEntry[]; summary: string }> = [
  { path: '/v2/source-of-funds-codes', list: SOURCE_OF_FUNDS_CODES, summary: 'List the source-of-funds codes' },
  { path: '/v2/purpose-codes', list: PURPOSE_CODES, summary: 'List the purpose codes' },
  { path: '/v2/relationship-codes', list: RELATIONSHIP_CODES, summary: 'List the relationship codes' },
];

export async function codeRoutes(app: FastifyInstance) {
  for (const { path, list, summary } of LISTS) {
    app.get(
      path,
      {
        config: { scope: 'payouts' },
        schema: {
          summary,
          description: 'Values for the payout complianceInfo object. Static: safe to cache.',
          tags: ['Code lists'],
          response: { 200: CodeList(list[0]!) },
        },
      },
      async () => list,
    );
  }
}
