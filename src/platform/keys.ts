// The server's two secrets: the token signing key and the key under which client secrets are
// hashed. Production takes them from the environment (config.ts refuses to boot without them).
// Sandbox generates them once into DATA_DIR/keys.json (owner-only), so tokens and client secrets
// survive a restart.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from './config.ts';

export interface Keys {
  tokenSigningKey: Buffer;
  tokenSigningKeyPrevious: Buffer | undefined;
  clientSecretKey: Buffer;
}

const KEY_BYTES_MIN = 32;

export function decodeKey(name: string, value: string): Buffer {
  const key = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length < KEY_BYTES_MIN) throw new Error(`${name} must hold at least ${KEY_BYTES_MIN} bytes`);
  return key;
}

interface KeyFile {
  tokenSigningKey: string;
  clientSecretKey: string;
}

async function sandboxKeyFile(dataDir: string): Promise<KeyFile> {
  const file = path.join(dataDir, 'keys.json');
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as KeyFile;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await fs.mkdir(dataDir, { recursive: true });
  const fresh: KeyFile = {
    tokenSigningKey: randomBytes(KEY_BYTES_MIN).toString('base64'),
    clientSecretKey: randomBytes(KEY_BYTES_MIN).toString('base64'),
  };
  try {
    await fs.writeFile(file, JSON.stringify(fresh), { mode: 0o600, flag: 'wx' });
    return fresh;
  } catch (error) {
    // another process created it first: use theirs
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return JSON.parse(await fs.readFile(file, 'utf8')) as KeyFile;
    throw error;
  }
}

export async function resolveKeys(config: Config): Promise<Keys> {
  const needFile = config.tokenSigningKey === undefined || config.clientSecretKey === undefined;
  if (needFile && config.mode === 'production') throw new Error('production mode needs TOKEN_SIGNING_KEY and CLIENT_SECRET_KEY');
  const file = needFile ? await sandboxKeyFile(config.dataDir) : undefined;
  return {
    tokenSigningKey: decodeKey('TOKEN_SIGNING_KEY', config.tokenSigningKey ?? file!.tokenSigningKey),
    tokenSigningKeyPrevious:
      config.tokenSigningKeyPrevious === undefined ? undefined : decodeKey('TOKEN_SIGNING_KEY_PREVIOUS', config.tokenSigningKeyPrevious),
    clientSecretKey: decodeKey('CLIENT_SECRET_KEY', config.clientSecretKey ?? file!.clientSecretKey),
  };
}
