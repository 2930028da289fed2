// The payout area's HTTP operations (scope payouts) and its sandbox control.
import type { FastifyInstance } from 'fastify';
import { ApiError, errorResponses, type ErrorCode } from '../platform/http/errors.ts';
import { memberOf } from '../auth/plugin.ts';
import type { CreateErrorCode } from './create-payout.ts';
import type { CreatePayoutInput } from './input.ts';
import type { PartnerReport } from './partner-report.ts';
import type { PayoutsService } from './service.ts';
import {
  CancelBody, CancelResponse, CreatePayoutBody, CreatePayoutResponse, PayoutParams, PayoutStatusResponse, ProcessResponse, SimulateBody,
} from './schemas.ts';

type Refusal = CreateErrorCode | 'NOT_FOUND' | 'INVALID_STATE' | 'NO_RAIL';

const CODE_OF: Partial<Record<Refusal, ErrorCode>> = { NO_RAIL: 'SERVICE_UNAVAILABLE' };

const MESSAGES: Record<Refusal, string> = {
  NO_RAIL: 'The payout partner is not reachable; the payout was not sent.',
  VALIDATION_ERROR: 'The request is not valid.',
  UNKNOWN_PAYOUT_PROVIDER: 'No such payout provider for you.',
  UNSUPPORTED_CURRENCY: 'The payout provider does not pay out in this currency.',
  UNSUPPORTED_PAYOUT_METHOD: 'The payout provider does not offer this payout method.',
  LIMIT_EXCEEDED: 'The amount is outside the payout provider\'s limits.',
  INSUFFICIENT_PREFUND: 'Not enough available prefund for this payout and its fee.',
  DUPLICATE_SOURCE_MEMBER_PAYOUT_ID: 'This sourceMemberPayoutId was already used for a different payout.',
  NOT_FOUND: 'No such payout.',
  INVALID_STATE: 'The payout\'s current state does not allow this.',
};

const refusal = (code: Refusal, detail: string) => new ApiError(CODE_OF[code] ?? (code as ErrorCode), MESSAGES[code], detail);
const notFound = (payoutId: string) => refusal('NOT_FOUND', `payoutId: ${payoutId}`);

export async function payoutRoutes(app: FastifyInstance, opts: { payouts: PayoutsService; sandbox: boolean }) {
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
    const result = await payouts.create(memberOf(request).memberId, request.body as CreatePayoutInput);
    if (!result.ok) throw refusal(result.code, result.detail);
    reply.code(201).header('location', (result.body['links'] as { details: string }).details);
    if (result.replayed) reply.header('idempotent-replayed', 'true');
    return result.body;
  });

  app.get('/v2/payouts/:payoutId', {
    config: { scope: 'payouts' },
    schema: { summary: 'Get a payout', tags, params: PayoutParams, response: { 200: { $ref: 'Payout' }, ...errorResponses(404) } },
  }, async (request) => {
    const { payoutId } = request.params as { payoutId: string };
    const record = await payouts.get(memberOf(request).memberId, payoutId);
    if (!record) throw notFound(payoutId);
    return record;
  });

  app.get('/v2/payouts/:payoutId/status', {
    config: { scope: 'payouts' },
    schema: { summary: 'Get a payout\'s status', tags, params: PayoutParams, response: { 200: PayoutStatusResponse, ...errorResponses(404) } },
  }, async (request) => {
    const { payoutId } = request.params as { payoutId: string };
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
    const { payoutId } = request.params as { payoutId: string };
    const result = await payouts.process(memberOf(request).memberId, payoutId);
    if (!result.ok) throw refusal(result.code, result.detail);
    return result.view;
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
    const { payoutId } = request.params as { payoutId: string };
    const { cancellationReason } = request.body as { cancellationReason: string };
    const result = await payouts.cancel(memberOf(request).memberId, payoutId, cancellationReason);
    if (!result.ok) throw refusal(result.code, result.detail);
    return reply.code(202).send(result.view);
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
    const { payoutId } = request.params as { payoutId: string };
    const result = await payouts.simulate(memberOf(request).memberId, payoutId, request.body as PartnerReport);
    if (!result.ok) throw refusal(result.code, result.detail);
    return result.record;
  });
}
