// `npm run admin -- partners ...`: partner connections and keys, and the service's own public key.
// Every change is audited (partners/admin.ts) with the operator as actor (--actor, else the OS user).
import os from 'node:os';
import fs from 'node:fs/promises';
import type { Db } from '../platform/database/pool.ts';
import type { Config } from '../platform/config.ts';
import { createPartnersAdmin, type AdminResult } from '../partners/admin.ts';
import type { AdminRefusal } from '../partners/errors.ts';
import { resolveServiceSigningKey, serviceKeySet } from '../partners/service-key.ts';

export const PARTNERS_USAGE = `  partners list
  partners connect --member MEMBER_ID --base-url URL [--enabled true|false]
  partners keys [--member MEMBER_ID]
  partners add-key --member MEMBER_ID --key-id KEY_ID (--public-key KEY | --public-key-file FILE.pem)
  partners retire-key KEY_ID
  partners service-key
  (changes take --actor NAME for the audit row; default: the operating system user)`;

export const PARTNERS_COMMANDS = ['partners list', 'partners connect', 'partners keys', 'partners add-key', 'partners retire-key', 'partners service-key'];
export const PARTNERS_LIST_COMMANDS = ['partners list', 'partners keys'];

export interface PartnerArgs {
  member?: string | undefined;
  'base-url'?: string | undefined;
  enabled?: string | undefined;
  'key-id'?: string | undefined;
  'public-key'?: string | undefined;
  'public-key-file'?: string | undefined;
  actor?: string | undefined;
}

export class PartnersUsageError extends Error {}
export class PartnersCommandError extends Error {}

const REFUSALS: Record<AdminRefusal, string> = {
  UNKNOWN_DESTINATION_MEMBER: 'UNKNOWN_DESTINATION_MEMBER: no destination member has this id',
  INVALID_BASE_URL: 'INVALID_BASE_URL: an http(s) URL without credentials, query or fragment',
  INVALID_PUBLIC_KEY: 'INVALID_PUBLIC_KEY: an Ed25519 public key, PEM or 32 bytes in base64',
  INVALID_KEY_ID: 'INVALID_KEY_ID: 1 to 100 of A-Z a-z 0-9 . _ : -',
  KEY_ID_TAKEN: 'KEY_ID_TAKEN: a key with this id is registered already (key ids are never reused)',
  KEY_NOT_FOUND: 'KEY_NOT_FOUND: no partner key has this id',
  KEY_ALREADY_RETIRED: 'KEY_ALREADY_RETIRED: the key is retired already',
};

function unwrap<T>(result: AdminResult<T>): T {
  if (result.ok) return result.value;
  throw new PartnersCommandError(REFUSALS[result.error]);
}

function need(values: PartnerArgs, name: keyof PartnerArgs): string {
  const value = values[name];
  if (value === undefined || value === '') throw new PartnersUsageError(`--${name} is required`);
  return value;
}

export async function executePartners(db: Db, config: Config, command: string, argument: string | undefined, values: PartnerArgs): Promise<{ rows: object[]; note?: string }> {
  const admin = createPartnersAdmin({ db, actor: values.actor ?? os.userInfo().username });
  switch (command) {
    case 'partners list':
      return { rows: await admin.listConnections() };
    case 'partners connect': {
      const enabled = values.enabled ?? 'true';
      if (enabled !== 'true' && enabled !== 'false') throw new PartnersUsageError('--enabled takes true or false');
      const row = unwrap(await admin.setConnection(need(values, 'member'), need(values, 'base-url'), enabled === 'true'));
      return { rows: [row], note: 'Every service process uses the change within PARTNER_CONNECTIONS_REFRESH_MS.' };
    }
    case 'partners keys':
      return { rows: await admin.listKeys(values.member) };
    case 'partners add-key': {
      const text = values['public-key'] ?? (values['public-key-file'] === undefined ? undefined : await fs.readFile(values['public-key-file'], 'utf8'));
      if (text === undefined) throw new PartnersUsageError('--public-key or --public-key-file is required');
      return { rows: [unwrap(await admin.addKey(need(values, 'member'), need(values, 'key-id'), text))] };
    }
    case 'partners retire-key': {
      if (!argument) throw new PartnersUsageError('partners retire-key needs a KEY_ID');
      return { rows: [unwrap(await admin.retireKey(argument))], note: 'Reports signed with this key are refused from now on.' };
    }
    case 'partners service-key': {
      const key = await resolveServiceSigningKey({ dataDir: config.dataDir, keyFile: config.partnerSigningKeyFile });
      const jwk = serviceKeySet(key).keys[0]!;
      return {
        rows: [{ keyId: jwk.kid, publicKey: jwk.x, algorithm: 'ed25519' }],
        note: 'Give partners this key (32 bytes, base64url) and key id; they may also fetch it from GET /partner-api/v1/keys.',
      };
    }
    default:
      throw new PartnersUsageError(`unknown command "${command}"`);
  }
}
