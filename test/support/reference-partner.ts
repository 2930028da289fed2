// Test support: the reference partner (npm run partner) as a child process on a free port, with
// its books in a temporary directory, and its control API.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT, tempDataDir } from './service.ts';
import type { Behaviour } from '../../partner/server.ts';
import { createPartnersAdmin } from '../../src/partners/admin.ts';
import type { Db } from '../../src/platform/database/pool.ts';

const NODE = path.join(ROOT, 'node_modules/.bin/node');
const START_TIMEOUT_MS = 20_000;

export interface ReferencePartner {
  child: ChildProcess;
  url: string;
  keyId: string;
  /** Its public key, 32 bytes base64url, as an operator registers it. */
  publicKey: string;
  output: () => string;
  stop(): Promise<void>;
  /** Behaviour for the next request (no payoutId) or for every request about one payout. */
  behave(behaviour: Behaviour, payoutId?: string): Promise<void>;
  /** Behaviour for every request about one settlement notice. */
  behaveForSettlement(behaviour: Behaviour, reference: string): Promise<void>;
  books(): Promise<Books>;
  pickUp(payoutId: string): Promise<Response>;
  /** Whether it serves the batch route (false: answers it 404, as a partner of protocol 1.1). */
  serveBatches(enabled: boolean): Promise<void>;
  /** How many protocol requests it has logged for a path, by answer status. */
  calls(path: string): Record<number, number>;
}

export interface Books {
  payouts: Array<{ payoutId: string; status: string; amount: string | null; currency: string | null; submissions: number }>;
  paidByCurrency: Record<string, string>;
  reports: Array<{ reportId: string; payoutId: string; status: string; sequence: number; state: string; attempts: number }>;
  settlements: {
    notices: Array<{ reference: string; settlementId: string; partnerNoticeId: string; currency: string; creditAmount: string; notices: number; txHash: string | null }>;
    confirmations: Array<{ reference: string; creditedAmount: string; currency: string; partnerCreditId: string; state: string; attempts: number; lastError: string | null }>;
  };
}

export async function spawnReferencePartner(options: { serviceUrl: string; args?: string[]; storeDir?: string }): Promise<ReferencePartner> {
  const dir = options.storeDir ?? (await tempDataDir());
  const child = spawn(NODE, ['partner/main.ts', '--port', '0', '--service-url', options.serviceUrl, '--store', path.join(dir, 'partner.sqlite'), ...(options.args ?? [])], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = await new Promise<{ url: string; keyId: string; publicKey: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`partner did not start:\n${output}`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.includes('"partner started"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line) as { url: string; keyId: string; publicKey: string });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => reject(new Error(`partner exited before it started:\n${output}`)));
  });
  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${started.url}${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
  return {
    child, ...started, output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
    async behave(behaviour, payoutId) {
      const response = await control('POST', '/control/behaviour', { behaviour, ...(payoutId === undefined ? {} : { payoutId }) });
      if (response.status !== 200) throw new Error(`behaviour refused: ${response.status}`);
    },
    async behaveForSettlement(behaviour, reference) {
      const response = await control('POST', '/control/behaviour', { behaviour, reference });
      if (response.status !== 200) throw new Error(`behaviour refused: ${response.status}`);
    },
    async books() {
      return (await (await control('GET', '/control/books')).json()) as Books;
    },
    pickUp: (payoutId) => control('POST', `/control/payouts/${payoutId}/pickup`),
    async serveBatches(enabled) {
      const response = await control('POST', '/control/batches', { enabled });
      if (response.status !== 200) throw new Error(`batches control refused: ${response.status}`);
    },
    calls(callPath) {
      const counts: Record<number, number> = {};
      for (const line of output.split('\n')) {
        if (!line.includes('"msg":"request"')) continue;
        const entry = JSON.parse(line) as { path: string; status: number };
        if (entry.path === callPath) counts[entry.status] = (counts[entry.status] ?? 0) + 1;
      }
      return counts;
    },
  };
}

/**
 * Connects the service (through its database) to the partner for memberId: the partner's key and
 * base URL, then a wait for every process to read the connection (PARTNER_CONNECTIONS_REFRESH_MS).
 */
export async function connectReferencePartner(db: Db, partner: ReferencePartner, memberId = 'PARTNER_MX', refreshWaitMs = 600): Promise<void> {
  const admin = createPartnersAdmin({ db, actor: 'test' });
  assert.ok((await admin.addKey(memberId, partner.keyId, partner.publicKey)).ok);
  assert.ok((await admin.setConnection(memberId, partner.url, true)).ok);
  await new Promise((r) => setTimeout(r, refreshWaitMs));
}
