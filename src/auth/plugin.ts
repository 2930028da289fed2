// Bearer-token verification for every route that declares `config: { scope }`. The member
// identity comes from the token alone. The declaration also writes the route's OpenAPI security
// requirement and its 401/403 responses, so the document and the enforcement cannot disagree.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Db } from '../platform/database/pool.ts';
import { ApiError, errorResponses } from '../platform/http/errors.ts';
import { isClientActive } from './repo.ts';
import type { Scope } from './scopes.ts';
import type { TokenSigner } from './tokens.ts';
import type { FailureGuard, Refusal } from './failures.ts';

export interface AuthContext {
  memberId: string;
  clientId: string;
  scopes: Scope[];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The OAuth scope this route needs; routes without it are public. */
    scope?: Scope;
  }
  interface FastifyRequest {
    auth: AuthContext | undefined;
  }
}

/** How long a client's active/revoked state is trusted before it is read again. */
export const CLIENT_STATUS_TTL_MS = 2000;
const CLIENT_STATUS_ENTRIES_MAX = 10_000;

/** Remembers briefly whether each client is still active, so a revocation reaches live tokens. */
export function createClientStatusCache(db: Db, now: () => number = Date.now) {
  const entries = new Map<string, { active: boolean; checkedAtMs: number }>();
  return {
    async isActive(clientId: string): Promise<boolean> {
      const entry = entries.get(clientId);
      if (entry && now() - entry.checkedAtMs < CLIENT_STATUS_TTL_MS) return entry.active;
      const active = await isClientActive(db, clientId);
      if (entries.size >= CLIENT_STATUS_ENTRIES_MAX) entries.clear();
      entries.set(clientId, { active, checkedAtMs: now() });
      return active;
    },
    forget(clientId: string): void {
      entries.delete(clientId);
    },
  };
}
export type ClientStatusCache = ReturnType<typeof createClientStatusCache>;

const BEARER = /^Bearer ([A-Za-z0-9\-_.~+/]+=*)$/;

function unauthorized(detail: string, tokenSent: boolean): ApiError {
  const challenge = tokenSent ? 'Bearer error="invalid_token"' : 'Bearer';
  return new ApiError('UNAUTHORIZED', 'A valid bearer token is required.', detail, { 'www-authenticate': challenge });
}

/** The 429 of a refused authentication attempt (token request or bearer token), with Retry-After. */
export function failedAuthenticationError(refusal: Refusal): ApiError {
  const whose = refusal.over === 'address' ? 'from this address' : 'for this client id from addresses that have failed for it';
  return new ApiError(
    'RATE_LIMITED',
    'Too many failed authentication attempts.',
    `limit: ${refusal.limit} failed attempts per ${refusal.windowSeconds} seconds ${whose}`,
    { 'retry-after': String(refusal.retryAfterSeconds) },
  );
}

export interface AuthDeps {
  signer: TokenSigner;
  clientStatus: ClientStatusCache;
  failures: FailureGuard;
}

/** The token's claims, or the 401 it gets. */
async function bearerClaims(deps: AuthDeps, header: string | undefined): Promise<AuthContext | ApiError> {
  if (header === undefined || header === '') return unauthorized('Authorization: no bearer token was sent', false);
  const match = BEARER.exec(header);
  if (!match) return unauthorized('Authorization: must be "Bearer <access token>"', true);
  const result = await deps.signer.verify(match[1]!);
  if (!result.ok) {
    return unauthorized(result.reason === 'expired' ? 'Authorization: the token has expired' : 'Authorization: the token is not valid', true);
  }
  if (!(await deps.clientStatus.isActive(result.claims.clientId))) {
    return unauthorized('Authorization: the client of this token has been revoked', true);
  }
  return result.claims;
}

export function authenticate(deps: AuthDeps, scope: Scope) {
  return async function verifyBearer(request: FastifyRequest): Promise<void> {
    const claims = await bearerClaims(deps, request.headers.authorization);
    if (claims instanceof ApiError) {
      // a valid token never comes here: failures alone are counted, per source address
      const refusal = await deps.failures.bearerFailed(request.ip).catch((error: unknown) => {
        request.log.warn({ err: error }, 'failed bearer token not counted');
        return undefined;
      });
      throw refusal ? failedAuthenticationError(refusal) : claims;
    }
    request.auth = claims;
    if (!claims.scopes.includes(scope)) {
      throw new ApiError('INSUFFICIENT_SCOPE', `This operation needs the "${scope}" scope.`, `scope: "${scope}" is required`, {
        'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
      });
    }
  };
}

/** Registers the hook that secures every route declaring a scope. Call before routes are added. */
export function registerAuth(app: FastifyInstance, deps: AuthDeps): void {
  app.decorateRequest('auth', undefined);
  app.addHook('onRoute', (route: RouteOptions) => {
    const scope = route.config?.scope;
    if (scope === undefined) return;
    const hooks = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [authenticate(deps, scope), ...hooks] as RouteOptions['onRequest'];
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    schema['security'] = [{ oauth2: [scope] }];
    schema['response'] = { ...errorResponses(401, 403, 429, 500), ...(schema['response'] as object | undefined) };
  });
}

/** The authenticated member of a secured route (the hook guarantees it). */
export function memberOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new Error('memberOf() called on a route without a scope');
  return request.auth;
}
