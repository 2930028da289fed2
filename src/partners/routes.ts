// The service's side of the partner protocol, under /partner-api (kept out of the member API's
// /openapi.json and its generated client): report intake, settlement confirmations, the service's
// public keys and the protocol's own OpenAPI document. Every intake request is signed (partners/signatures.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { Db } from '../platform/database/pool.ts';
import { refusalError } from '../platform/http/refusals.ts';
import { typed } from '../platform/http/typed.ts';
import { PartnerReport, PartnerReportAnswer, ServiceKeys } from './protocol.ts';
import { verifyRequest } from './signatures.ts';
import type { Intake } from './intake.ts';
import type { SettlementIntake } from './settlement-intake.ts';
import { SettlementConfirmation, SettlementConfirmationAnswer } from './settlement-protocol.ts';
import { PARTNER_REFUSALS } from './errors.ts';
import type { ServiceSigningKey } from './service-key.ts';
import { serviceKeySet } from './service-key.ts';
import { partnerApiDocument } from './openapi.ts';
import { partnerKeyLookup } from './keys.ts';

/** The schema without its $id, for use inline in a route (the document references it by name). */
function inline<T extends TSchema>(schema: T): T {
  const { $id: _id, ...rest } = schema as T & { $id?: string };
  return rest as T;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The partner (destination member id) whose active key signed this request. */
    partnerMemberId?: string;
  }
}

export async function partnerRoutes(fastify: FastifyInstance, options: { db: Db; intake: Intake; settlementIntake: SettlementIntake; serviceKey: ServiceSigningKey }) {
  const app = typed(fastify);
  const lookup = partnerKeyLookup(options.db);
  const authenticate = async (request: FastifyRequest) => {
    const result = await verifyRequest({
      method: request.method,
      url: `${request.protocol}://${request.host}${request.url}`,
      headers: request.headers,
      rawBody: request.rawBody,
    }, lookup);
    if (!result.ok) throw refusalError(PARTNER_REFUSALS, result);
    request.partnerMemberId = result.key.memberId;
  };

  app.post('/partner-api/v1/reports', {
    // the signature is checked before the body is validated: an unsigned caller learns nothing of the schema
    preValidation: authenticate,
    schema: { hide: true, body: inline(PartnerReport), response: { 200: inline(PartnerReportAnswer) } },
  }, async (request) => {
    const result = await options.intake.receive(request.partnerMemberId!, request.body);
    if (!result.ok) throw refusalError(PARTNER_REFUSALS, result);
    return result.value;
  });

  app.post('/partner-api/v1/settlement-confirmations', {
    preValidation: authenticate,
    schema: { hide: true, body: inline(SettlementConfirmation), response: { 200: inline(SettlementConfirmationAnswer) } },
  }, async (request) => {
    const result = await options.settlementIntake.receive(request.partnerMemberId!, request.body);
    if (!result.ok) throw refusalError(PARTNER_REFUSALS, result);
    return result.value;
  });

  const keys = serviceKeySet(options.serviceKey);
  app.get('/partner-api/v1/keys', { schema: { hide: true, response: { 200: inline(ServiceKeys) } } }, async () => keys);

  const document = partnerApiDocument();
  app.get('/partner-api/openapi.json', { schema: { hide: true }, config: { rateLimit: false } }, async () => document);
}
