// The client credentials grant (RFC 6749 section 4.4). Failures are the RFC's error values.
import type { Db } from '../platform/database/pool.ts';
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

export interface TokenRequest {
  clientId: string;
  clientSecret: string;
  grantType: string | undefined;
  scope: string | undefined;
}

const UNKNOWN_CLIENT_HASH = Buffer.alloc(32);

const fail = (error: OAuthErrorCode, description: string): OAuthFailure => ({ ok: false, error, description });

export function createTokenService(deps: { db: Db; clientSecretKey: Buffer; signer: TokenSigner }) {
  return {
    async issue(request: TokenRequest): Promise<TokenGrant | OAuthFailure> {
      if (request.grantType === undefined || request.grantType === '') {
        return fail('invalid_request', 'grant_type is required');
      }
      if (request.grantType !== 'client_credentials') {
        return fail('unsupported_grant_type', 'only grant_type=client_credentials is supported');
      }
      const client = await repo.findClient(deps.db, request.clientId);
      // The same answer, after the same work, for an unknown client, a wrong secret and a revoked client.
      const authenticated =
        verifyClientSecret(deps.clientSecretKey, request.clientSecret, client?.secretHash ?? UNKNOWN_CLIENT_HASH) &&
        client !== undefined;
      if (!client || !authenticated || client.revokedAt) return fail('invalid_client', 'client authentication failed');
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

export type TokenService = ReturnType<typeof createTokenService>;
