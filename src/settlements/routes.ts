// The settlement area's HTTP operations (scope settlements) and their sandbox controls.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ApiError, errorResponses, type ErrorCode } from '../platform/http/errors.ts';
import { memberOf } from '../auth/plugin.ts';
import type { RateRefusal, RatesService } from './rates.ts';
import type { SettlementsService } from './service.ts';
import type { CreateSettlementInput } from './create-settlement.ts';
import { CreateSettlementBody, IdempotencyHeaders, RateParams, RateQuery, SettlementParams } from './schemas.ts';

const RATE_REFUSALS: Record<RateRefusal, [ErrorCode, string]> = {
  UNKNOWN_DESTINATION_MEMBER: ['UNKNOWN_DESTINATION_MEMBER', 'No such destination member.'],
  VALIDATION_ERROR: ['VALIDATION_ERROR', 'The request is not valid.'],
  UNSUPPORTED_CURRENCY: ['UNSUPPORTED_CURRENCY', 'The destination member does not settle in this currency.'],
  CORRIDOR_INACTIVE: ['CORRIDOR_INACTIVE', 'You have no active corridor to this destination member.'],
  NOT_QUOTED: ['SERVICE_UNAVAILABLE', 'No rate can be quoted for this corridor right now; try again later.'],
};

const rateRefusal = (code: RateRefusal, detail: string) => new ApiError(RATE_REFUSALS[code][0], RATE_REFUSALS[code][1], detail);

export async function settlementRoutes(app: FastifyInstance, opts: { rates: RatesService; settlements: SettlementsService; sandbox: boolean }) {
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
        'corridor 422 CORRIDOR_INACTIVE; `destinationCcy` may be left out when the member settles in one currency only.',
      tags,
      querystring: RateQuery,
      response: { 200: Type.Ref('SettlementRate'), ...errorResponses(400, 422, 503) },
    },
  }, async (request) => {
    const result = await rates.lock(memberOf(request).memberId, request.query as { destinationMemberId: string; destinationCcy?: string });
    if (!result.ok) throw rateRefusal(result.code, result.detail);
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
      response: { 201: Type.Ref('Settlement'), ...errorResponses(400, 409, 413, 415, 422) },
    },
  }, async (request, reply) => {
    const key = (request.headers as Record<string, string | undefined>)['idempotency-key'];
    const answer = await settlements.create(memberOf(request).memberId, request.body as CreateSettlementInput, key);
    const replayed: Record<string, string> = answer.replayed ? { 'idempotent-replayed': 'true' } : {};
    if (!answer.ok) throw new ApiError(answer.error.code, answer.error.message, answer.error.detail, replayed);
    reply.code(201).header('location', `/v2/settlements/${answer.record.settlementId}`).headers(replayed);
    return answer.record;
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
    const { settlementId } = request.params as { settlementId: string };
    const record = await settlements.get(memberOf(request).memberId, settlementId);
    if (!record) throw new ApiError('NOT_FOUND', 'No such settlement.', `settlementId: ${settlementId}`);
    return record;
  });

  if (!opts.sandbox) return;

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
    const { rateId } = request.params as { rateId: string };
    const rate = await rates.expire(memberOf(request).memberId, rateId);
    if (!rate) throw new ApiError('NOT_FOUND', 'No such rate.', `rateId: ${rateId}`);
    return rate;
  });
}
