// GET /v2/destination-members and GET /v2/destination-members/{destinationMemberId}/statement (scope member).
import type { FastifyInstance } from 'fastify';
import Negotiator from 'negotiator';
import { Type } from 'typebox';
import type { Db } from '../platform/database/pool.ts';
import { toJsonNumber } from '../platform/money.ts';
import { instantOf } from '../platform/clock.ts';
import { errorResponses } from '../platform/http/errors.ts';
import { refusalError } from '../platform/http/refusals.ts';
import { typed } from '../platform/http/typed.ts';
import { STATEMENT_REFUSALS } from './errors.ts';
import { memberOf } from '../auth/plugin.ts';
import { listDestinationMembers } from './destination-members.ts';
import { destinationMemberExample } from './schemas.ts';
import { STATEMENT_PAGE_SIZE_DEFAULT, type Statement, type StatementService } from './statement.ts';
import { statementCsv, statementFileName } from './statement-csv.ts';
import { StatementParams, StatementQuery } from './statement-schemas.ts';

const STATEMENT_DESCRIPTION =
  'Every movement of your prefund at this destination member, in one currency, with the balances after it: the statement ' +
  'behind the balance and availableBalance of GET /v2/destination-members. Named after the statements of Wise\'s balances ' +
  '(one account, one currency, a running balance) and paged like Stripe\'s balance transactions (a cursor and hasMore). ' +
  'A payout first reserves its amount and its fee (PAYOUT_RESERVED, PAYOUT_FEE_RESERVED: availableBalance only); when it ' +
  'completes they are posted (PAYOUT_POSTED, PAYOUT_FEE_POSTED: balance only); when it is rejected, fails, is cancelled or ' +
  'expires they are released (PAYOUT_RELEASED, PAYOUT_FEE_RELEASED: availableBalance only). Everything else moves both. ' +
  'Movements are listed in the order the ledger recorded them (`asc`, the default, or `desc`); `after` takes the previous ' +
  'page\'s `nextAfter`, and a cursor stays valid while new movements are added: none is skipped or repeated. `from` and ' +
  '`to` keep the movements of a half-open time range (a filter over that order: a short range far back in a long history ' +
  'takes longer than following it with the cursor). `limit` is 1 to 100 (default 50). With `Accept: text/csv` the same ' +
  'page comes as a CSV attachment (a header line, amounts as exact decimal text) with the next page in a `Link` header. ' +
  'A destination member with no corridor from you is 404; `currency` is required when the member holds several.';

function statementJson(s: Statement) {
  const n = (minor: bigint) => toJsonNumber(minor, s.currency);
  return {
    destinationMemberId: s.destinationMemberId, currency: s.currency, order: s.order,
    balance: n(s.current.balance), availableBalance: n(s.current.available),
    movements: s.movements.map((m) => ({
      ...m, time: m.time.toISOString(), amount: n(m.amount), runningBalance: n(m.runningBalance), runningAvailableBalance: n(m.runningAvailableBalance),
    })),
    hasMore: s.hasMore, nextAfter: s.nextAfter,
  };
}

function nextLink(url: string, nextAfter: string): string {
  const next = new URL(url, 'http://service.invalid');
  next.searchParams.set('after', nextAfter);
  return `<${next.pathname}${next.search}>; rel="next"`;
}

export async function memberRoutes(fastify: FastifyInstance, opts: { db: Db; statements: StatementService }) {
  const app = typed(fastify);
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

  app.get(
    '/v2/destination-members/:destinationMemberId/statement',
    {
      config: { scope: 'member' },
      schema: {
        summary: 'Your prefund statement at a destination member (extension)',
        description: STATEMENT_DESCRIPTION,
        tags: ['Members'],
        params: StatementParams,
        querystring: StatementQuery,
        response: { 200: Type.Ref('Statement'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const { destinationMemberId } = request.params;
      const query = request.query; // order and limit are filled in by validation (schema defaults); the fallbacks satisfy the type
      const order = query.order ?? 'asc';
      const limit = query.limit ?? STATEMENT_PAGE_SIZE_DEFAULT;
      const result = await opts.statements.read(memberOf(request).memberId, destinationMemberId, {
        ...query, order, limit, from: query.from === undefined ? undefined : instantOf(query.from), to: query.to === undefined ? undefined : instantOf(query.to),
      });
      if (!result.ok) throw refusalError(STATEMENT_REFUSALS, result);
      if (new Negotiator(request).mediaType(['application/json', 'text/csv']) !== 'text/csv') return statementJson(result.value);
      reply.header('content-type', 'text/csv; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="${statementFileName(result.value)}"`);
      if (result.value.hasMore && result.value.nextAfter) reply.header('link', nextLink(request.url, result.value.nextAfter));
      return statementCsv(result.value);
    },
  );
}
