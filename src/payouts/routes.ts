// The payout area's HTTP operations (scope payouts) and its sandbox control.
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../platform/http/errors.ts';
import { refusalError } from '../platform/http/refusals.ts';
import { typed } from '../platform/http/typed.ts';
import { refuse } from '../platform/result.ts';
import { memberOf } from '../auth/plugin.ts';
import type { PayoutsService } from './service.ts';
import { PAYOUT_REFUSALS } from './errors.ts';
import {
  CancelBody, CancelResponse, CreatePayoutBody, CreatePayoutResponse, PayoutParams, PayoutStatusResponse, ProcessResponse, SimulateBody,
} from './schemas.ts';

const notFound = (payoutId: string) => refusalError(PAYOUT_REFUSALS, refuse('NOT_FOUND', `payoutId: ${payoutId}`));

export async function payoutRoutes(fastify: FastifyInstance, opts: { payouts: PayoutsService; sandbox: boolean }) {
  const app = typed(fastify);
  const { payouts } = opts;
  const tags = ['Payouts'];

  app.post('/v2/payouts', {
    config: { scope: 'payouts' },
    schema: {
      summary: 'Create a payout',
      description:
        'Validates the request against the provider (field rules: 400 naming the field), its currency, method and limits ' +
        '(422), computes transferFee, and reserves payoutAmt + transferFee from your prefund at the provider\'s destination member ' +
        '(422 INSUFFICIENT_PREFUND). Idempotent by sourceMemberPayoutId: the same request again answers the original 201 with ' +
        '`Idempotent-Replayed: true`; a different request under the same id is 409 DUPLICATE_SOURCE_MEMBER_PAYOUT_ID. ' +
        'A provider whose destination member has no active corridor from you is 422 UNKNOWN_PAYOUT_PROVIDER. ' +
        'Under heavy contention the service may answer 503 SERVICE_UNAVAILABLE with `Retry-After`: nothing was created, and the ' +
        'same request (same sourceMemberPayoutId) may be sent again.',
      tags,
      body: CreatePayoutBody,
      response: { 201: CreatePayoutResponse, ...errorResponses(400, 409, 413, 415, 422, 503) },
    },
  }, async (request, reply) => {
    const result = await payouts.create(memberOf(request).memberId, request.body);
    if (!result.ok) throw refusalError(PAYOUT_REFUSALS, result);
    const { body, replayed } = result.value;
    reply.code(201).header('location', body.links.details);
    if (replayed) reply.header('idempotent-replayed', 'true');
    return body;
  });

  app.get('/v2/payouts/:payoutId', {
    config: { scope: 'payouts' },
    schema: { summary: 'Get a payout', tags, params: PayoutParams, response: { 200: { $ref: 'Payout' }, ...errorResponses(404) } },
  }, async (request) => {
    const { payoutId } = request.params;
    const record = await payouts.get(memberOf(request).memberId, payoutId);
    if (!record) throw notFound(payoutId);
    return record;
  });

  app.get('/v2/payouts/:payoutId/status', {
    config: { scope: 'payouts' },
    schema: { summary: 'Get a payout\'s status', tags, params: PayoutParams, response: { 200: PayoutStatusResponse, ...errorResponses(404) } },
  }, async (request) => {
    const { payoutId } = request.params;
    const status = await payouts.status(memberOf(request).memberId, payoutId);
    if (!status) throw notFound(payoutId);
    return status;
  });

  app.post('/v2/payouts/:payoutId/process', {
    config: { scope: 'payouts' },
    schema: {
      summary: 'Process a payout',
      description:
        'Sends an ACCP payout to its partner. A partner that confirms at once gives PRCD; otherwise PNDG (cash pickup: ' +
        'cashoutStatus READY_FOR_PICKUP). On PNDG or PRCD it answers the current state; on RJCT, CNCL, EXPD, FAIL, RVSD, or while a ' +
        'cancellation is pending, 409 INVALID_STATE. Concurrent calls send the payout once.',
      tags,
      params: PayoutParams,
      response: { 200: ProcessResponse, ...errorResponses(404, 409, 503) },
    },
  }, async (request) => {
    const result = await payouts.process(memberOf(request).memberId, request.params.payoutId);
    if (!result.ok) throw refusalError(PAYOUT_REFUSALS, result);
    return result.value;
  });

  app.post('/v2/payouts/:payoutId/cancel', {
    config: { scope: 'payouts' },
    schema: {
      summary: 'Cancel a payout',
      description:
        'Accepted (202) for ACCP and PNDG payouts: payoutCancellationStatus becomes PNDG, then the payout becomes CNCL with ' +
        'cancellation PRCD, or the cancellation is RJCT when the partner has already paid. A repeated cancel while one is pending ' +
        'answers the same; a final state is 409 INVALID_STATE.',
      tags,
      params: PayoutParams,
      body: CancelBody,
      response: { 202: CancelResponse, ...errorResponses(400, 404, 409, 413, 415, 503) },
    },
  }, async (request, reply) => {
    const result = await payouts.cancel(memberOf(request).memberId, request.params.payoutId, request.body.cancellationReason);
    if (!result.ok) throw refusalError(PAYOUT_REFUSALS, result);
    return reply.code(202).send(result.value);
  });

  if (!opts.sandbox) return;
  app.post('/v2/sandbox/payouts/:payoutId/simulate', {
    config: { scope: 'payouts' },
    schema: {
      summary: 'Sandbox: a partner report for a payout',
      description: 'Applies the partner outcome through the same path as a real partner report; an illegal move is 409 INVALID_STATE.',
      tags: ['Sandbox'],
      params: PayoutParams,
      body: SimulateBody,
      response: { 200: { $ref: 'Payout' }, ...errorResponses(400, 404, 409, 413, 415, 503) },
    },
  }, async (request) => {
    const result = await payouts.simulate(memberOf(request).memberId, request.params.payoutId, request.body);
    if (!result.ok) throw refusalError(PAYOUT_REFUSALS, result);
    return result.value;
  });
}
