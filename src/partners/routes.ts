// The service's side of the partner protocol, under /partner-api (kept out of the member API's
// /openapi.json and its generated client): report intake, the service's public keys and the
// protocol's own OpenAPI document. Every intake request is signed (partners/signatures.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../platform/database/pool.ts';
import { ApiError } from '../platform/http/errors.ts';
import { PartnerReport, PartnerReportAnswer, ServiceKeys } from './protocol.ts';
import { verifyRequest, type VerifyFailure } from './signatures.ts';
import type { Intake, IntakeError } from './intake.ts';
import type { ServiceSigningKey } from './service-key.ts';
import { serviceKeySet } from './service-key.ts';
import { partnerApiDocument } from './openapi.ts';
import { partnerKeyLookup } from './keys.ts';

const SIGNATURE_DETAIL: Record<VerifyFailure, string> = {
  SIGNATURE_MISSING: 'Signature: the Signature and Signature-Input headers are required',
  UNKNOWN_KEY: 'Signature-Input: keyid is not an active partner key',
  SIGNATURE_INVALID: 'Signature: does not verify over the covered components',
  SIGNATURE_EXPIRED: 'Signature-Input: created is too old or in the future',
  DIGEST_MISMATCH: 'Content-Digest: missing, or not the sha-256 of the body',
};

const INTAKE_ERRORS: Record<IntakeError, () => ApiError> = {
  PAYOUT_NOT_FOUND: () => new ApiError('NOT_FOUND', 'No payout of this partner has this id.', 'payoutId: unknown to this partner'),
  REPORT_ID_REUSED: () => new ApiError('IDEMPOTENCY_KEY_REUSED', 'This reportId was used for another report.', 'reportId: already used with another payoutId, status or sequence'),
};

/** The schema without its $id, for use inline in a route (the document references it by name). */
function inline(schema: object): Record<string, unknown> {
  const { $id: _id, ...rest } = schema as Record<string, unknown>;
  return rest;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The partner (destination member id) whose active key signed this request. */
    partnerMemberId?: string;
  }
}

export async function partnerRoutes(app: FastifyInstance, options: { db: Db; intake: Intake; serviceKey: ServiceSigningKey }) {
  const lookup = partnerKeyLookup(options.db);
  const authenticate = async (request: FastifyRequest) => {
    const result = await verifyRequest({
      method: request.method,
      url: `${request.protocol}://${request.host}${request.url}`,
      headers: request.headers,
      rawBody: request.rawBody,
    }, lookup);
    if (!result.ok) throw new ApiError('UNAUTHORIZED', 'The request signature is missing or not valid.', SIGNATURE_DETAIL[result.error]);
    request.partnerMemberId = result.key.memberId;
  };

  app.post('/partner-api/v1/reports', {
    // the signature is checked before the body is validated: an unsigned caller learns nothing of the schema
    preValidation: authenticate,
    schema: { hide: true, body: inline(PartnerReport), response: { 200: inline(PartnerReportAnswer) } },
  }, async (request) => {
    const result = await options.intake.receive(request.partnerMemberId!, request.body as PartnerReport);
    if (!result.ok) throw INTAKE_ERRORS[result.error]();
    return result.value;
  });

  const keys = serviceKeySet(options.serviceKey);
  app.get('/partner-api/v1/keys', { schema: { hide: true, response: { 200: inline(ServiceKeys) } } }, async () => keys);

  const document = partnerApiDocument();
  app.get('/partner-api/openapi.json', { schema: { hide: true }, config: { rateLimit: false } }, async () => document);
}
