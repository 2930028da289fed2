// Mock mode's token endpoint: any client id and secret are accepted and get the scopes they ask
// for, so that a client's whole authentication flow runs unchanged against the mock.
import { isScope, type Scope } from '../auth/scopes.ts';
import { TOKEN_TTL_SECONDS, type TokenSigner } from '../auth/tokens.ts';
import { credentialsFailure, type TokenService } from '../auth/token-service.ts';

/** The member a mock token speaks for: the client id, upper-cased, in the member id alphabet. */
export const mockMemberId = (clientId: string) => clientId.toUpperCase().replace(/[^A-Z0-9_]/g, '_').slice(0, 64) || 'MOCK_MEMBER';

export function createMockTokenService(signer: TokenSigner): TokenService {
  return {
    async issue(request) {
      const { credentials } = request;
      if (typeof credentials !== 'object') return credentialsFailure(credentials);
      if (request.grantType === undefined || request.grantType === '') return { ok: false, error: 'invalid_request', description: 'grant_type is required' };
      if (request.grantType !== 'client_credentials') {
        return { ok: false, error: 'unsupported_grant_type', description: 'only grant_type=client_credentials is supported' };
      }
      const requested = (request.scope ?? '').split(' ').filter(Boolean);
      if (requested.length === 0) return { ok: false, error: 'invalid_request', description: 'scope is required: a space-separated list of scopes' };
      const unknown = requested.find((s) => !isScope(s));
      if (unknown !== undefined) return { ok: false, error: 'invalid_scope', description: `scope "${unknown}" is not allowed to this client` };
      const scopes = [...new Set(requested)] as Scope[];
      const accessToken = await signer.sign({ memberId: mockMemberId(credentials.clientId), clientId: credentials.clientId, scopes });
      return { ok: true, accessToken, expiresIn: TOKEN_TTL_SECONDS, scopes };
    },
  };
}
