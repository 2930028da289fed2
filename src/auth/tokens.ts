// Access tokens: compact JWTs signed with HS256 (jose). Any process holding TOKEN_SIGNING_KEY can
// verify them without a database round trip. The `kid` header names the key, so a rotated-out
// key (TOKEN_SIGNING_KEY_PREVIOUS) keeps verifying the tokens it signed until they expire.
import { createHash, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors, decodeProtectedHeader } from 'jose';
import type { Scope } from './scopes.ts';

export const TOKEN_TTL_SECONDS = 300;
const ISSUER = 'settlement-payout-service';
const AUDIENCE = 'v2';
const ALGORITHM = 'HS256';
const CLOCK_TOLERANCE_SECONDS = 5;
/** Verified tokens remembered (until their expiry) so that a client's next call skips the HMAC. */
const VERIFIED_ENTRIES_MAX = 10_000;

export interface TokenClaims {
  memberId: string;
  clientId: string;
  scopes: Scope[];
}

export type VerifyResult = { ok: true; claims: TokenClaims } | { ok: false; reason: 'expired' | 'invalid' };

export interface TokenSigner {
  sign(claims: TokenClaims, nowSeconds?: number): Promise<string>;
  verify(token: string): Promise<VerifyResult>;
}

function keyId(key: Uint8Array): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

export function createTokenSigner(current: Uint8Array, previous?: Uint8Array, nowMs: () => number = Date.now): TokenSigner {
  const keys = new Map<string, Uint8Array>([[keyId(current), current]]);
  if (previous) keys.set(keyId(previous), previous);
  const currentKid = keyId(current);
  // A token is immutable and its signature was checked once; until exp it stays valid.
  const verified = new Map<string, { claims: TokenClaims; expSeconds: number }>();

  return {
    async sign(claims, nowSeconds = Math.floor(nowMs() / 1000)) {
      return new SignJWT({ client_id: claims.clientId, scope: claims.scopes.join(' ') })
        .setProtectedHeader({ alg: ALGORITHM, kid: currentKid, typ: 'at+jwt' })
        .setSubject(claims.memberId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(nowSeconds)
        .setExpirationTime(nowSeconds + TOKEN_TTL_SECONDS)
        .setJti(randomUUID())
        .sign(current);
    },

    async verify(token) {
      const known = verified.get(token);
      if (known) {
        if (nowMs() / 1000 < known.expSeconds + CLOCK_TOLERANCE_SECONDS) return { ok: true, claims: known.claims };
        verified.delete(token);
        return { ok: false, reason: 'expired' };
      }
      try {
        const kid = decodeProtectedHeader(token).kid;
        const key = kid === undefined ? undefined : keys.get(kid);
        if (!key) return { ok: false, reason: 'invalid' };
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          issuer: ISSUER,
          audience: AUDIENCE,
          typ: 'at+jwt',
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          currentDate: new Date(nowMs()),
          requiredClaims: ['sub', 'exp', 'iat', 'client_id', 'scope'],
        });
        const { sub, client_id: clientId, scope } = payload;
        if (typeof sub !== 'string' || typeof clientId !== 'string' || typeof scope !== 'string') {
          return { ok: false, reason: 'invalid' };
        }
        const claims: TokenClaims = { memberId: sub, clientId, scopes: scope.split(' ') as Scope[] };
        if (verified.size >= VERIFIED_ENTRIES_MAX) verified.clear();
        verified.set(token, { claims, expSeconds: payload.exp! });
        return { ok: true, claims };
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) return { ok: false, reason: 'expired' };
        return { ok: false, reason: 'invalid' };
      }
    },
  };
}
