// GET /v2/destination-members (scope member).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../platform/database/pool.ts';
import { memberOf } from '../auth/plugin.ts';
import { listDestinationMembers } from './destination-members.ts';
import { destinationMemberExample } from './schemas.ts';

export async function memberRoutes(app: FastifyInstance, opts: { db: Db }) {
  app.get(
    '/v2/destination-members',
    {
      config: { scope: 'member' },
      schema: {
        summary: 'List destination members',
        description: 'Every destination member with an active corridor from the caller, with the caller\'s prefund there.',
        tags: ['Members'],
        response: { 200: Type.Array(Type.Ref('DestinationMember'), { examples: [[destinationMemberExample]] }) },
      },
    },
    async (request) => listDestinationMembers(opts.db, memberOf(request).memberId),
  );
}
