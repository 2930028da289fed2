// Client secrets are 256-bit random values, stored only as HMAC-SHA-256 under the server's
// CLIENT_SECRET_KEY. A keyed fast hash is right for random secrets (no dictionary to resist), and
// keeps token issuance cheap; comparison is constant-time.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_BYTES = 32;

export function generateClientSecret(): string {
  return `cs_${randomBytes(SECRET_BYTES).toString('base64url')}`;
}

export function hashClientSecret(key: Buffer, secret: string): Buffer {
  return createHmac('sha256', key).update(secret, 'utf8').digest();
}

export function verifyClientSecret(key: Buffer, secret: string, storedHash: Buffer): boolean {
  const candidate = hashClientSecret(key, secret);
  return candidate.length === storedHash.length && timingSafeEqual(candidate, storedHash);
}
