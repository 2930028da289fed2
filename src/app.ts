// Builds the HTTP application: platform conventions, authentication and every domain's routes.
// It owns no connections; the caller (service.ts, or a test) hands in the database and keys.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Db } from './platform/database/pool.ts';
import type { Keys } from './platform/keys.ts';
import type { Mode, TrustProxy } from './platform/config.ts';
import type { SharedRateLimit } from './platform/rate-limit/store.ts';
import { clientErrors, frameworkErrors, MAX_PARAM_LENGTH, registerHttpPlatform, requestIdFor } from './platform/http/plugins.ts';
import { registerOpenApi } from './platform/http/openapi.ts';
import { buildValidator } from './platform/http/validation.ts';
import { lazyCompilers } from './platform/http/lazy-compilers.ts';
import { applyBounds } from './platform/http/bounds.ts';
import { createTokenSigner, type TokenSigner } from './auth/tokens.ts';
import { createClientStatusCache, registerAuth } from './auth/plugin.ts';
import { createTokenService, type TokenService } from './auth/token-service.ts';
import { createFailureGuard, NO_FAILURE_GUARD, type FailureLimits } from './auth/failures.ts';
import { installMockHandlers } from './mock/handlers.ts';
import { createClientsService } from './auth/clients.ts';
import { basicCredentials, tokenRoutes } from './auth/routes.ts';
import { codeRoutes } from './codes/routes.ts';
import { CodeListEntry } from './codes/schemas.ts';
import { DestinationMember } from './members/schemas.ts';
import { settlementRoutes } from './settlements/routes.ts';
import type { RatesService } from './settlements/rates.ts';
import { SettlementRate, SettlementRecord } from './settlements/schemas.ts';
import type { SettlementsService } from './settlements/service.ts';
import { memberRoutes } from './members/routes.ts';
import { createStatementService } from './members/statement.ts';
import { createCursorCodec } from './members/statement-cursor.ts';
import { Statement, StatementMovement } from './members/statement-schemas.ts';
import { providerRoutes } from './providers/routes.ts';
import type { ProvidersService } from './providers/service.ts';
import type { PayoutsService } from './payouts/service.ts';
import { payoutRoutes } from './payouts/routes.ts';
import { payoutListRoutes } from './payouts/list-routes.ts';
import { AddressInfo, Beneficiary, ComplianceInfo, PayoutRecord, Sender } from './payouts/schemas.ts';
import { sandboxRoutes } from './sandbox/routes.ts';
import { clientRoutes } from './auth/client-routes.ts';
import { healthRoutes, type Readiness } from './health/routes.ts';
import { eventRoutes } from './events/routes.ts';
import { documentedEvent, EVENT_SCHEMAS, webhookOperations } from './events/schemas.ts';
import type { EventsService } from './events/service.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import type { EndpointsService } from './webhooks/endpoints.ts';
import { partnerRoutes } from './partners/routes.ts';
import type { SettlementIntake } from './partners/settlement-intake.ts';
import type { Intake } from './partners/intake.ts';
import type { ServiceSigningKey } from './partners/service-key.ts';
import type { Metrics } from './metrics/registry.ts';
import { metricsRoutes } from './metrics/routes.ts';

export const BODY_LIMIT_BYTES = 64 * 1024;
/** Client ids are at most 100 characters; a longer claimed one is cut, so that a key stays small. */
const CLIENT_ID_KEY_CHARS_MAX = 100;

export interface AppOptions {
  mode: Mode;
  db: Db;
  keys: Keys;
  rateLimitPerMinute: number;
  /** Per-client counts shared with the other processes on the database (see platform/rate-limit). */
  rateLimitStore?: SharedRateLimit;
  /** Whose X-Forwarded-For gives request.ip (see config.ts). */
  trustProxy: TrustProxy;
  authFailureLimits: FailureLimits;
  readiness: Readiness;
  logger: FastifyBaseLogger;
  providers: ProvidersService;
  payouts: PayoutsService;
  rates: RatesService;
  settlements: SettlementsService;
  events: EventsService;
  webhookEndpoints: EndpointsService;
  /** The partner protocol's side in the service (/partner-api); absent in mock mode. */
  partners?: { intake: Intake; settlementIntake: SettlementIntake; serviceKey: ServiceSigningKey };
  /** Prometheus metrics: requests are counted when given; GET /metrics is served when a token is given too. */
  metrics?: { metrics: Metrics; token: string | undefined };
  /** Mock mode: secured routes answer their documented examples, tokens come from `tokens`. */
  mock?: { tokens: (signer: TokenSigner) => TokenService };
}

/** One access-log line per request (not two), with the path but never the query string. */
class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const entry = {
      method: request.method,
      path: request.url.split('?')[0],
      statusCode: reply.statusCode,
      // who asked: set once the token is verified (absent for public routes and refused tokens)
      clientId: request.auth?.clientId,
      memberId: request.auth?.memberId,
      responseTimeMs: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) reply.log.error({ ...entry, err: error }, 'request errored');
    else reply.log.info(entry, 'request completed');
  }
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger,
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    requestIdHeader: false,
    logController: new AccessLog({ requestIdLogLabel: 'requestId' }),
    bodyLimit: BODY_LIMIT_BYTES,
    connectionTimeout: 30_000,
    keepAliveTimeout: 72_000,
    requestTimeout: 30_000,
    return503OnClosing: false, // plugins.ts answers with the contract's Error body instead
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler: clientErrors(options.logger),
    trustProxy: options.trustProxy,
    schemaController: { compilersFactory: options.mock ? lazyCompilers : { buildValidator } },
  });

  const signer = createTokenSigner(options.keys.tokenSigningKey, options.keys.tokenSigningKeyPrevious);
  // mock mode has no clients to revoke: every token it signed stays good until it expires
  const clientStatus = options.mock ? { isActive: async () => true, forget: () => undefined } : createClientStatusCache(options.db);
  const failures = options.mock
    ? NO_FAILURE_GUARD
    : createFailureGuard({
      db: options.db,
      limits: options.authFailureLimits,
      onLimitReached: (bucket, refusal) =>
        options.logger.warn({ bucket, limit: refusal.limit, windowSeconds: refusal.windowSeconds }, 'failed-authentication limit reached'),
      onPruneError: (error) => options.logger.warn({ err: error }, 'pruning auth_failures failed'),
    });
  const tokens = options.mock
    ? options.mock.tokens(signer)
    : createTokenService({ db: options.db, clientSecretKey: options.keys.clientSecretKey, signer, failures });
  const clients = createClientsService({
    db: options.db,
    clientSecretKey: options.keys.clientSecretKey,
    onChange: (clientId) => clientStatus.forget(clientId),
  });
  app.decorate('services', { clients });

  if (options.metrics) observeRequests(app, options.metrics.metrics);
  await registerHttpPlatform(app, {
    rateLimitPerMinute: options.rateLimitPerMinute,
    ...(options.rateLimitStore === undefined ? {} : { rateLimitStore: options.rateLimitStore }),
    clientKey: (request) => {
      if (request.auth) return `client:${request.auth.clientId}`;
      // A token request is not authenticated yet: it is counted under the client id it claims
      // and the address it comes from, so that requests claiming someone's client id from
      // elsewhere never spend that client's budget (failures have their own limit: auth/failures.ts).
      const basic = basicCredentials(request.headers.authorization);
      return typeof basic === 'object' ? `token:${request.ip} ${basic.clientId.slice(0, CLIENT_ID_KEY_CHARS_MAX)}` : undefined;
    },
  });
  await registerOpenApi(app, { webhooks: webhookOperations(), schemas: { Event: documentedEvent() } });
  // Schemas referenced by $ref from more than one area live at the root.
  for (const schema of [CodeListEntry, DestinationMember, AddressInfo, Sender, Beneficiary, ComplianceInfo, PayoutRecord, SettlementRate, SettlementRecord, ...EVENT_SCHEMAS, StatementMovement, Statement]) app.addSchema(applyBounds(schema));
  registerAuth(app, { signer, clientStatus, failures });
  if (options.mock) installMockHandlers(app);

  await app.register(healthRoutes, { readiness: options.readiness });
  await app.register(tokenRoutes, { tokens });
  await app.register(codeRoutes);
  await app.register(clientRoutes, { clients });
  await app.register(providerRoutes, { providers: options.providers });
  const sandbox = options.mode === 'sandbox' || options.mode === 'mock';
  await app.register(payoutRoutes, { payouts: options.payouts, sandbox });
  await app.register(payoutListRoutes, { db: options.db });
  const statements = createStatementService({ db: options.db, cursors: createCursorCodec(options.keys.clientSecretKey) });
  await app.register(memberRoutes, { db: options.db, statements });
  await app.register(settlementRoutes, { rates: options.rates, settlements: options.settlements, sandbox });
  await app.register(eventRoutes, { events: options.events });
  await app.register(webhookRoutes, { endpoints: options.webhookEndpoints });
  if (sandbox) await app.register(sandboxRoutes, { db: options.db });
  if (options.partners) await app.register(partnerRoutes, { db: options.db, ...options.partners });
  if (options.metrics?.token !== undefined) await app.register(metricsRoutes, { metrics: options.metrics.metrics, token: options.metrics.token });
  return app;
}

/** Every answered request, under its route pattern (a URL that matched none counts as "unmatched"). */
function observeRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest({
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      statusCode: reply.statusCode,
      elapsedSeconds: reply.elapsedTime / 1000,
    });
    done();
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    services: { clients: ReturnType<typeof createClientsService> };
  }
}
