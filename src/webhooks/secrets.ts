// Endpoint signing secrets. The service must sign with the secret itself, so it cannot keep only a
// hash (as it does for client secrets): the secret is sealed with AES-256-GCM under a key derived
// from CLIENT_SECRET_KEY, so a copy of the database alone does not let anyone forge our webhooks.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const SECRET_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEAL_VERSION = 'v1';

/** `whsec_` + base64 of 32 random bytes, the Standard Webhooks form. */
export function generateEndpointSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

export interface SecretBox {
  seal(secret: string): string;
  open(sealed: string): string;
}

export function createSecretBox(clientSecretKey: Buffer): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', clientSecretKey, Buffer.alloc(0), 'webhook-endpoint-secrets', 32));
  return {
    seal(secret) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `${SEAL_VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    open(sealed) {
      const [version, data] = sealed.split('.');
      if (version !== SEAL_VERSION || data === undefined) throw new Error('sealed endpoint secret in an unknown form');
      const raw = Buffer.from(data, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}
