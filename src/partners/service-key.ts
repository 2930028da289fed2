// The service's own Ed25519 key, with which it signs every call to a partner. Configured as a PEM
// file (PARTNER_SIGNING_KEY_FILE), or generated once into DATA_DIR/partner-signing-key.pem
// (owner-only) like the sandbox keys of platform/keys.ts, so that it survives restarts. Its key id
// is derived from the public key, so a new key is a new id; partners fetch the public key from
// GET /partner-api/v1/keys or are given it by an operator (npm run admin -- partners service-key).
import { createPublicKey, type KeyObject } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { generateSigningKeyPem, keyIdOf, parsePrivateKey, rawPublicKey } from './signatures.ts';
import type { ServiceKeys } from './protocol.ts';

export interface ServiceSigningKey {
  keyId: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export const SERVICE_KEY_FILE = 'partner-signing-key.pem';

async function generatedKeyPem(dataDir: string): Promise<string> {
  const file = path.join(dataDir, SERVICE_KEY_FILE);
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await fs.mkdir(dataDir, { recursive: true });
  const pem = generateSigningKeyPem();
  try {
    await fs.writeFile(file, pem, { mode: 0o600, flag: 'wx' });
    return pem;
  } catch (error) {
    // another process created it first: use theirs
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFile(file, 'utf8');
    throw error;
  }
}

export async function resolveServiceSigningKey(options: { dataDir: string; keyFile: string | undefined }): Promise<ServiceSigningKey> {
  const pem = options.keyFile !== undefined ? await fs.readFile(options.keyFile, 'utf8') : await generatedKeyPem(options.dataDir);
  const privateKey = parsePrivateKey(pem);
  const publicKey = createPublicKey(privateKey);
  return { keyId: keyIdOf('service', publicKey), privateKey, publicKey };
}

/** The public half as a JWK set. */
export function serviceKeySet(key: ServiceSigningKey): ServiceKeys {
  return { keys: [{ kty: 'OKP', crv: 'Ed25519', kid: key.keyId, x: rawPublicKey(key.publicKey).toString('base64url'), alg: 'ed25519' }] };
}
