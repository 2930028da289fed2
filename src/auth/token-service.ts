// The client credentials grant (RFC 6749 section 4.4). Failures are the RFC's error values.
import type { Db } from '../platform/database/pool.ts';
import type { FailureGuard, Refusal } from './failures.ts';
import * as repo from './repo.ts';
import { verifyClientSecret } from './secrets.ts';
import { isScope, type Scope } from './scopes.ts';
import { TOKEN_TTL_SECONDS, type TokenSigner } from './tokens.ts';

export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope';

export interface OAuthFailure {
  ok: false;
  error: OAuthErrorCode;
  description: string;
}

export interface TokenGrant {
  ok: true;
  accessToken: string;
  expiresIn: number;
  scopes: Scope[];
}

/** Too many failed attempts from this address (or for this client id from it): not an RFC 6749 error. */
export interface TokenRefused {
  ok: false;
  error: 'rate_limited';
  refusal: Refusal;
}

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

export interface TokenRequest {
  /** From HTTP Basic or the form; 'malformed': an Authorization header that is not Basic credentials. */
  credentials: ClientCredentials | 'malformed' | 'missing';
  grantType: string | undefined;
  scope: string | undefined;
  /** The source address (X-Forwarded-For only from trusted proxies). */
  address: string;
}

/** The answers to credentials that are not there at all: the same in every mode. */
export function credentialsFailure(credentials: 'malformed' | 'missing'): OAuthFailure {
  return credentials === 'malformed'
    ? fail('invalid_request', 'Authorization: must be "Basic <base64(client_id:client_secret)>"')
    : fail('invalid_client', 'client authentication is required (HTTP Basic or client_id and client_secret)');
}

const UNKNOWN_CLIENT_HASH = Buffer.alloc(32);

const fail = (error: OAuthErrorCode, description: string): OAuthFailure => ({ ok: false, error, description });

export interface TokenService {
  issue(request: TokenRequest): Promise<TokenGrant | OAuthFailure | TokenRefused>;
}

export function createTokenService(deps: { db: Db; clientSecretKey: Buffer; signer: TokenSigner; failures: FailureGuard }): TokenService {
  const { failures } = deps;
  return {
    async issue(request) {
      const { credentials, address } = request;
      const claimedId = typeof credentials === 'object' ? credentials.clientId : undefined;
      // Refused before any secret is looked at: a refused attempt learns nothing. A refusal this
      // process already knows costs no query; otherwise the client row is read while the failure
      // counters are (one round trip, not two), and awaited below unless the answer comes first.
      const known = failures.knownTokenRefusal(address, claimedId);
      if (known) return { ok: false, error: 'rate_limited', refusal: known };
      const lookup = claimedId === undefined ? Promise.resolve(undefined) : repo.findClient(deps.db, claimedId);
      lookup.catch(() => undefined);
      const refusal = await failures.tokenAttemptRefusal(address, claimedId);
      if (refusal) return { ok: false, error: 'rate_limited', refusal };
      if (typeof credentials !== 'object') {
        await failures.tokenFailed(address, undefined);
        return credentialsFailure(credentials);
      }
      if (request.grantType === undefined || request.grantType === '') {
        return fail('invalid_request', 'grant_type is required');
      }
      if (request.grantType !== 'client_credentials') {
        return fail('unsupported_grant_type', 'only grant_type=client_credentials is supported');
      }
      const client = await lookup;
      // The same answer, after the same work, for an unknown client, a wrong secret and a revoked client.
      const authenticated =
        verifyClientSecret(deps.clientSecretKey, credentials.clientSecret, client?.secretHash ?? UNKNOWN_CLIENT_HASH) &&
        client !== undefined;
      if (!client || !authenticated || client.revokedAt) {
        await failures.tokenFailed(address, credentials.clientId);
        return fail('invalid_client', 'client authentication failed');
      }
      const requested = (request.scope ?? '').split(' ').filter(Boolean);
      if (requested.length === 0) return fail('invalid_request', 'scope is required: a space-separated list of scopes');
      const unknown = requested.find((s) => !isScope(s) || !client.allowedScopes.includes(s));
      if (unknown !== undefined) return fail('invalid_scope', `scope "${unknown}" is not allowed to this client`);
      const scopes = [...new Set(requested)] as Scope[];
      const accessToken = await deps.signer.sign({ memberId: client.memberId, clientId: client.clientId, scopes });
      return { ok: true, accessToken, expiresIn: TOKEN_TTL_SECONDS, scopes };
    },
  };
}
