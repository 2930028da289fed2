// The reference partner: a separate process that implements the partner protocol
// (docs/partner-guide.md) with its own books, for tests, demos and as a template for real
// partners. `npm run partner -- --service-url http://127.0.0.1:8080 [options]`; every option also
// reads from the environment:
//   --port PARTNER_PORT (8090)            --host PARTNER_HOST (127.0.0.1)
//   --service-url PARTNER_SERVICE_URL     where reports go (required)
//   --store PARTNER_STORE                 SQLite file of the books (./data/partner.sqlite)
//   --key-file PARTNER_KEY_FILE           its Ed25519 private key, PEM (generated beside the store when absent)
//   --key-id PARTNER_KEY_ID               the id the service registered that key under (default derived from the key)
//   --service-public-key PARTNER_SERVICE_PUBLIC_KEY
//                                         the service's public key (PEM or base64); default: fetched from
//                                         {service-url}/partner-api/v1/keys
import { createPublicKey, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateSigningKeyPem, keyIdOf, parsePrivateKey, parsePublicKey, publicKeyFromRaw, rawPublicKey } from '../src/partners/signatures.ts';
import { openStore } from './store.ts';
import { startReporter } from './reporter.ts';
import { createPartnerServer } from './server.ts';

const SERVICE_KEYS_REFETCH_MS = 10_000;

export interface PartnerOptions {
  port: number;
  host: string;
  serviceUrl: string;
  store: string;
  keyFile: string | undefined;
  keyId: string | undefined;
  servicePublicKey: string | undefined;
}

export function readOptions(argv: string[], env: NodeJS.ProcessEnv): PartnerOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' }, host: { type: 'string' }, 'service-url': { type: 'string' }, store: { type: 'string' },
      'key-file': { type: 'string' }, 'key-id': { type: 'string' }, 'service-public-key': { type: 'string' },
    },
  });
  const serviceUrl = values['service-url'] ?? env['PARTNER_SERVICE_URL'];
  if (!serviceUrl) throw new Error('--service-url (or PARTNER_SERVICE_URL) is required');
  const port = Number(values.port ?? env['PARTNER_PORT'] ?? 8090);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port is 0 to 65535');
  return {
    port,
    host: values.host ?? env['PARTNER_HOST'] ?? '127.0.0.1',
    serviceUrl: serviceUrl.replace(/\/+$/, ''),
    store: path.resolve(values.store ?? env['PARTNER_STORE'] ?? './data/partner.sqlite'),
    keyFile: values['key-file'] ?? env['PARTNER_KEY_FILE'],
    keyId: values['key-id'] ?? env['PARTNER_KEY_ID'],
    servicePublicKey: values['service-public-key'] ?? env['PARTNER_SERVICE_PUBLIC_KEY'],
  };
}

function privateKeyOf(options: PartnerOptions): KeyObject {
  const file = options.keyFile ?? path.join(path.dirname(options.store), 'partner-key.pem');
  if (!fs.existsSync(file)) fs.writeFileSync(file, generateSigningKeyPem(), { mode: 0o600, flag: 'wx' });
  return parsePrivateKey(fs.readFileSync(file, 'utf8'));
}

/** The service's keys: as configured, or its JWK set, fetched again (at most every 10 s) when a key id is new. */
function serviceKeySource(options: PartnerOptions) {
  if (options.servicePublicKey !== undefined) {
    const key = parsePublicKey(options.servicePublicKey);
    const keys = new Map([[keyIdOf('service', key), key]]);
    return async () => keys;
  }
  let keys = new Map<string, KeyObject>();
  let fetchedAtMs = 0;
  return async () => {
    if (Date.now() - fetchedAtMs < SERVICE_KEYS_REFETCH_MS) return keys;
    fetchedAtMs = Date.now();
    const response = await fetch(`${options.serviceUrl}/partner-api/v1/keys`, { signal: AbortSignal.timeout(5000) });
    const set = (await response.json()) as { keys: Array<{ kid: string; x: string }> };
    keys = new Map(set.keys.map((k) => [k.kid, publicKeyFromRaw(Buffer.from(k.x, 'base64url'))]));
    return keys;
  };
}

export async function startPartner(options: PartnerOptions, log: (entry: object) => void) {
  fs.mkdirSync(path.dirname(options.store), { recursive: true });
  const store = openStore(options.store);
  const privateKey = privateKeyOf(options);
  const publicKey = createPublicKey(privateKey);
  const key = { keyId: options.keyId ?? keyIdOf('partner', publicKey), privateKey };
  const reporter = startReporter({ store, serviceUrl: options.serviceUrl, key, log });
  const server = createPartnerServer({ store, serviceKeys: serviceKeySource(options), log });
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  const address = server.address() as { port: number };
  const url = `http://${options.host}:${address.port}`;
  log({ msg: 'partner started', url, keyId: key.keyId, publicKey: rawPublicKey(publicKey).toString('base64url') });
  return {
    url,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await reporter.stop();
      store.close();
    },
  };
}

if (import.meta.main) {
  const log = (entry: object) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);
  try {
    const partner = await startPartner(readOptions(process.argv.slice(2), process.env), log);
    const stop = () => {
      partner.stop().then(() => process.exit(0), () => process.exit(1));
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  } catch (error) {
    log({ msg: 'partner did not start', err: (error as Error).message });
    process.exit(1);
  }
}
