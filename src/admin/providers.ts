// `npm run admin -- providers ...`: the payout provider catalogue as data. Every change is
// validated and audited (providers/admin.ts) with the operator as actor (--actor, else the OS user).
import os from 'node:os';
import fs from 'node:fs/promises';
import type { Db } from '../platform/database/pool.ts';
import { createProvidersAdmin, type ProvidersAdminError, type ProvidersAdminResult } from '../providers/admin.ts';
import { CATALOGUE_TTL_MS } from '../providers/service.ts';
import { CommandError, UsageError } from './errors.ts';

export const PROVIDERS_USAGE = `  providers list
  providers show PROVIDER_ID
  providers set --file PROVIDER.json [--actor NAME]   (create, or replace the definition of, a provider)
  providers disable PROVIDER_ID [--actor NAME]
  providers enable PROVIDER_ID [--actor NAME]`;

export const PROVIDERS_COMMANDS = ['providers list', 'providers show', 'providers set', 'providers disable', 'providers enable'];
export const PROVIDERS_LIST_COMMANDS = ['providers list'];

/** A provider document is a page of data; anything larger is a mistake. */
const PROVIDER_FILE_BYTES_MAX = 256 * 1024;

const REFUSALS: Record<ProvidersAdminError, string> = {
  INVALID: 'INVALID: the document does not have the shape of a provider record',
  UNKNOWN_CURRENCY: 'UNKNOWN_CURRENCY: not a currency this service handles',
  INVALID_AMOUNT: 'INVALID_AMOUNT: an amount is not exact in its currency',
  LIMIT_MIN_ABOVE_MAX: 'LIMIT_MIN_ABOVE_MAX: a minimumLimit is above its maximumLimit',
  INVALID_LIMITS: 'INVALID_LIMITS: one limit per currency of the provider, maximum above 0',
  INVALID_FEES: 'INVALID_FEES: one fee per currency of the provider, percentage at most 100',
  INVALID_FIELD_RULE: 'INVALID_FIELD_RULE: a field rule cannot work',
  UNKNOWN_DESTINATION_MEMBER: 'UNKNOWN_DESTINATION_MEMBER: no destination member has this id',
  UNSUPPORTED_CURRENCY: 'UNSUPPORTED_CURRENCY: the destination member does not hold this currency',
  PROVIDER_NOT_FOUND: 'PROVIDER_NOT_FOUND: no payout provider has this id',
  ALREADY_ENABLED: 'ALREADY_ENABLED: the provider is enabled already',
  ALREADY_DISABLED: 'ALREADY_DISABLED: the provider is disabled already',
};

function unwrap<T>(result: ProvidersAdminResult<T>): T {
  if (result.ok) return result.value;
  throw new CommandError(`${REFUSALS[result.error]}${result.detail ? ` (${result.detail})` : ''}`);
}

async function readDocument(file: string): Promise<unknown> {
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat?.isFile()) throw new UsageError(`--file: ${file} is not a readable file`);
  if (stat.size > PROVIDER_FILE_BYTES_MAX) throw new CommandError(`INVALID: ${file} is larger than ${PROVIDER_FILE_BYTES_MAX} bytes`);
  try {
    return JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (error) {
    throw new CommandError(`INVALID: ${file} is not JSON (${(error as Error).message})`);
  }
}

const CACHE_NOTE = `Every service process offers the change within ${CATALOGUE_TTL_MS / 1000} s (its catalogue cache).`;

export async function executeProviders(db: Db, command: string, argument: string | undefined, values: { file?: string | undefined; actor?: string | undefined }): Promise<{ rows: object[]; note?: string }> {
  const admin = createProvidersAdmin({ db, actor: values.actor ?? os.userInfo().username });
  const id = () => {
    if (!argument) throw new UsageError(`${command} needs a PROVIDER_ID`);
    return argument;
  };
  switch (command) {
    case 'providers list':
      return { rows: await admin.list() };
    case 'providers show':
      return { rows: [unwrap(await admin.show(id()))] };
    case 'providers set': {
      if (values.file === undefined || values.file === '') throw new UsageError('--file is required');
      const provider = unwrap(await admin.set(await readDocument(values.file)));
      return { rows: [provider], note: `${provider.created ? 'Created' : 'Replaced'} ${provider.payoutProviderId}${provider.active ? '' : ' (disabled: run "providers enable" to offer it)'}. ${CACHE_NOTE}` };
    }
    case 'providers disable':
      return { rows: [unwrap(await admin.disable(id()))], note: `Disabled: no new payout can use it. Payouts already created go on. ${CACHE_NOTE}` };
    case 'providers enable':
      return { rows: [unwrap(await admin.enable(id()))], note: `Enabled. ${CACHE_NOTE}` };
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}
