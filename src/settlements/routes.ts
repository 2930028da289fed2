// The settlement area's HTTP operations (scope settlements) and their sandbox controls.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ApiError, errorResponses } from '../platform/http/errors.ts';
import { refusalError } from '../platform/http/refusals.ts';
import { typed } from '../platform/http/typed.ts';
import { refuse } from '../platform/result.ts';
import { assertPagingDefaults } from '../platform/schema.ts';
import { memberOf } from '../auth/plugin.ts';
import type { RatesService } from './rates.ts';
import type { SettlementsService } from './service.ts';
import { SETTLEMENT_REFUSALS } from './errors.ts';
import {
  AdvanceBody, CreateSettlementBody, IdempotencyHeaders, RateParams, RateQuery, SettlementContext, SettlementList, SettlementListQuery, SettlementParams,
} from './schemas.ts';

export async function settlementRoutes(fastify: FastifyInstance, opts: { rates: RatesService; settlements: SettlementsService; sandbox: boolean }) {
  const app = typed(fastify);
  const { rates, settlements } = opts;
  const tags = ['Settlements'];

  app.get('/v2/settlement-rates', {
    config: { scope: 'settlements' },
    schema: {
      summary: 'Lock a settlement rate',
      description:
        'Every call locks a new rate for your corridor to the destination member: the rate of each execution interval ' +
        '(the IMMEDIATE one is `rate`), fixed until `expiryTime` and good for one settlement. An unknown destination member ' +
        'is 422 UNKNOWN_DESTINATION_MEMBER, a currency it does not settle in 422 UNSUPPORTED_CURRENCY, a missing or suspended ' +
        'corridor 422 CORRIDOR_INACTIVE; `destinationCcy` may be left out when the member settles in one currency only. ' +
        'Rates come from a price feed (in the sandbox, when none is configured, from simulated mid-market rates): the feed\'s ' +
        'mid for the pair less the service\'s feed spread, one buffer more per hour ahead of execution, then your corridor\'s ' +
        'spread. No current quote (the feed\'s quote older than the staleness limit or dated in the future, the feed failing, ' +
        'not answering in time or answering something that is not a quote) is 503 SERVICE_UNAVAILABLE with `Retry-After` and a ' +
        '`detail` naming the reason (`rate: the price feed\'s quote for USD/MXN is 93 s old (limit 60 s)`); a pair that is not ' +
        'quoted at all is 503 SERVICE_UNAVAILABLE without `Retry-After` (`USD/MXN is not quoted right now`). Neither locks anything.',
      tags,
      querystring: RateQuery,
      response: { 200: Type.Ref('SettlementRate'), ...errorResponses(400, 422, 503) },
    },
  }, async (request) => {
    const result = await rates.lock(memberOf(request).memberId, request.query);
    if (!result.ok) throw refusalError(SETTLEMENT_REFUSALS, result);
    return result.value;
  });

  app.post('/v2/settlements', {
    config: { scope: 'settlements' },
    schema: {
      summary: 'Create a settlement',
      description:
        'Checks, in this order: the schema (400); the destination member (422 UNKNOWN_DESTINATION_MEMBER); an active corridor ' +
        '(422 CORRIDOR_INACTIVE); the rate: yours (422 RATE_NOT_FOUND), unused (422 RATE_ALREADY_USED), unexpired (422 RATE_EXPIRED), ' +
        'locked for this destination member (422 RATE_MISMATCH); the amount within the corridor maximum (422 AMOUNT_ABOVE_CORRIDOR_MAX). ' +
        'The settlement gets the locked rate of its execution interval: IMMEDIATE starts as S200_RECEIVED, the others as ' +
        'S100_SCHEDULED with dueDate = now + the interval. Optional `Idempotency-Key` header (kept 24 h).',
      tags,
      headers: IdempotencyHeaders,
      body: CreateSettlementBody,
      response: { 201: Type.Ref('Settlement'), ...errorResponses(400, 409, 413, 415, 422, 503) },
    },
  }, async (request, reply) => {
    const answer = await settlements.create(memberOf(request).memberId, request.body, request.headers['idempotency-key']);
    const replayed: Record<string, string> = answer.replayed ? { 'idempotent-replayed': 'true' } : {};
    // the answer of a refusal is the stored one when replayed, so it comes whole, not as a refusal to map
    if (!answer.ok) throw new ApiError(answer.error.code, answer.error.message, answer.error.detail, replayed);
    reply.code(201).header('location', `/v2/settlements/${answer.record.settlementId}`).headers(replayed);
    return answer.record;
  });

  app.get('/v2/settlement-context', {
    config: { scope: 'settlements' },
    schema: {
      summary: 'Your corridors for settlements',
      description: 'Every corridor of yours, active or suspended, with its largest single settlement and the amount in flight on it.',
      tags,
      response: { 200: SettlementContext },
    },
  }, async (request) => settlements.context(memberOf(request).memberId));

  app.get('/v2/settlements', {
    config: { scope: 'settlements' },
    schema: {
      summary: 'List settlements',
      description:
        'Your settlements, a page at a time (`size` 1 to 100, default 10; `page` from 0; a page past the end is empty). Default order ' +
        '`creationTime DESC`; `sortDirection` accepts any case; empty values (completionTime, settlementAmtReceived before completion) ' +
        'come last in both directions; ties by creationTime, then settlementId, in the same direction. `createdAfter` is strict.',
      tags,
      querystring: SettlementListQuery,
      response: { 200: SettlementList, ...errorResponses(400) },
    },
  }, async (request) => {
    const { query } = request;
    assertPagingDefaults(query);
    return settlements.list(memberOf(request).memberId, query);
  });

  app.post('/v2/settlements/:settlementId/cancel', {
    config: { scope: 'settlements' },
    schema: {
      summary: 'Cancel a scheduled settlement',
      description: 'Extension. A settlement still S100_SCHEDULED ends as S500_TERMINATED and never starts; any other status is 409 INVALID_STATE.',
      tags,
      params: SettlementParams,
      response: { 202: Type.Ref('Settlement'), ...errorResponses(404, 409, 503) },
    },
  }, async (request, reply) => {
    const result = await settlements.cancel(memberOf(request).memberId, request.params.settlementId);
    if (!result.ok) throw refusalError(SETTLEMENT_REFUSALS, result);
    reply.code(202);
    return result.value;
  });

  app.get('/v2/settlements/:settlementId', {
    config: { scope: 'settlements' },
    schema: {
      summary: 'Get a settlement',
      tags,
      params: SettlementParams,
      response: { 200: Type.Ref('Settlement'), ...errorResponses(404) },
    },
  }, async (request) => {
    const { settlementId } = request.params;
    const record = await settlements.get(memberOf(request).memberId, settlementId);
    if (!record) throw refusalError(SETTLEMENT_REFUSALS, refuse('UNKNOWN_SETTLEMENT', `settlementId: ${settlementId}`));
    return record;
  });

  if (!opts.sandbox) return;

  app.post('/v2/sandbox/settlements/:settlementId/advance', {
    config: { scope: 'settlements' },
    schema: {
      summary: 'Sandbox: move a settlement on now',
      description:
        'Runs the settlement\'s next step now: a scheduled one starts (S200_RECEIVED), a received one is bought (S300_IN_PROGRESS), ' +
        'then the chain transfer, its confirmation and the swap (S400_FIAT_WITHDRAWAL_IN_PROGRESS), then the deposit and its ' +
        'confirmation (S600_COMPLETED). A step that waits (chain confirmations, the deposit) may leave the status as it was. ' +
        '`{"fail": true}` makes that step fail for good (S700_FAILED, source funds returned). A finished settlement is 409 INVALID_STATE.',
      tags: ['Sandbox'],
      params: SettlementParams,
      body: AdvanceBody,
      response: { 200: Type.Ref('Settlement'), ...errorResponses(400, 404, 409, 413, 415, 503) },
    },
    // the body is optional: none is {}
    preValidation: async (request) => {
      request.body ??= {};
    },
  }, async (request) => {
    const result = await settlements.advance(memberOf(request).memberId, request.params.settlementId, request.body);
    if (!result.ok) throw refusalError(SETTLEMENT_REFUSALS, result);
    return result.value;
  });

  app.post('/v2/sandbox/settlement-rates/:rateId/expire', {
    config: { scope: 'settlements' },
    schema: {
      summary: 'Sandbox: end a rate lock now',
      description: 'The rate lock expires now (a settlement with it is then 422 RATE_EXPIRED). Answers the rate as it now stands.',
      tags: ['Sandbox'],
      params: RateParams,
      response: { 200: Type.Ref('SettlementRate'), ...errorResponses(404) },
    },
  }, async (request) => {
    const { rateId } = request.params;
    const rate = await rates.expire(memberOf(request).memberId, rateId);
    if (!rate) throw refusalError(SETTLEMENT_REFUSALS, refuse('UNKNOWN_RATE', `rateId: ${rateId}`));
    return rate;
  });
}
