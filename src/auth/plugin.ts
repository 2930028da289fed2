// Bearer-token verification for every route that declares `config: { scope }`. The member
// identity comes from the token alone. The declaration also writes the route's OpenAPI security
// requirement and its 401/403 responses, so the document and the enforcement cannot disagree.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Db } from '../platform/database/pool.ts';
import { ApiError, errorResponses } from '../platform/http/errors.ts';
import { isClientActive } from './repo.ts';
import type { Scope } from './scopes.ts';
import type { TokenSigner } from './tokens.ts';

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

export interface AuthDeps {
  signer: TokenSigner;
  clientStatus: ClientStatusCache;
}

export function authenticate(deps: AuthDeps, scope: Scope) {
  return async function verifyBearer(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    if (header === undefined || header === '') throw unauthorized('Authorization: no bearer token was sent', false);
    const match = BEARER.exec(header);
    if (!match) throw unauthorized('Authorization: must be "Bearer <access token>"', true);
    const result = await deps.signer.verify(match[1]!);
    if (!result.ok) {
      throw unauthorized(result.reason === 'expired' ? 'Authorization: the token has expired' : 'Authorization: the token is not valid', true);
    }
    if (!(await deps.clientStatus.isActive(result.claims.clientId))) {
      throw unauthorized('Authorization: the client of this token has been revoked', true);
    }
    request.auth = result.claims;
    if (!result.claims.scopes.includes(scope)) {
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
