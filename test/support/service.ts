// Test support: the real service (real embedded PostgreSQL, real HTTP server on a free port),
// started in-process or as a child process exactly as `npm start` runs it. With DATABASE_URL set
// for the test run, each data directory's database is one made on that server (./database.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/platform/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { createClientsService } from '../../src/auth/clients.ts';
import { decodeKey } from '../../src/platform/keys.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { databaseEnvFor } from './database.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const createdDataDirs = new Set<string>();
// Each test file runs in its own process: when it ends, its services are stopped and the data
// directories it made (about 65 MB each, with their PostgreSQL clusters) go with it. They are
// not removed at stop(), because tests restart services on the same directory.
process.once('exit', () => {
  for (const dir of createdDataDirs) rmSync(dir, { recursive: true, force: true });
});

export async function tempDataDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-test-'));
  createdDataDirs.add(dir);
  return dir;
}

export interface TestService extends RunningService {
  dataDir: string;
}

/** The service in this process, on a free port, with its own DATA_DIR unless one is given. */
export async function startTestService(env: Record<string, string> = {}): Promise<TestService> {
  const dataDir = env['DATA_DIR'] ?? (await tempDataDir());
  const database = await databaseEnvFor(dataDir);
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', WORKERS: '1', ...database, ...env, DATA_DIR: dataDir });
  const service = await startService(config, createLogger(config.logLevel));
  return { ...service, dataDir };
}

/**
 * A data directory ready for production mode: the demo world seeded in sandbox mode, one real API
 * client of DEMO_SOURCE_1 with the given scopes, and the demo clients (published secrets) revoked,
 * as production requires. `env` starts production on it with the sandbox run's keys.
 */
export async function seedForProduction(scopes: Scope[]): Promise<{
  dataDir: string;
  env: Record<string, string>;
  credentials: { clientId: string; secret: string };
}> {
  const dataDir = await tempDataDir();
  const seeded = await startTestService({ DATA_DIR: dataDir, WORKERS: '0' });
  try {
    const keys = JSON.parse(await fs.readFile(path.join(dataDir, 'keys.json'), 'utf8')) as { tokenSigningKey: string; clientSecretKey: string };
    const clients = createClientsService({ db: seeded.db, clientSecretKey: decodeKey('CLIENT_SECRET_KEY', keys.clientSecretKey) });
    const created = await clients.create({ memberId: 'DEMO_SOURCE_1', scopes });
    if (!created.ok) throw new Error(`client not created: ${created.error}`);
    for (const clientId of ['demo-source-1', 'demo-source-2']) {
      const revoked = await clients.revoke(clientId);
      if (!revoked.ok) throw new Error(`${clientId} not revoked: ${revoked.error}`);
    }
    return {
      dataDir,
      env: { DATA_DIR: dataDir, MODE: 'production', TOKEN_SIGNING_KEY: keys.tokenSigningKey, CLIENT_SECRET_KEY: keys.clientSecretKey },
      credentials: { clientId: created.value.client.clientId, secret: created.value.secret },
    };
  } finally {
    await seeded.stop();
  }
}

export interface ChildService {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** SIGTERM, then wait for the exit code. */
  stop(): Promise<number | null>;
  exited: Promise<number | null>;
}

const NODE = path.join(ROOT, 'node_modules/.bin/node');
const START_TIMEOUT_MS = 60_000;

/** The database a child service on env's DATA_DIR gets when env does not name one. */
async function childDatabaseEnv(env: Record<string, string>): Promise<Record<string, string>> {
  return env['DATABASE_URL'] === undefined ? databaseEnvFor(path.resolve(ROOT, env['DATA_DIR'] ?? './data')) : {};
}

/** `node src/main.ts` as a child process; resolves once it logs "service started". */
export async function spawnService(env: Record<string, string>): Promise<ChildService> {
  const database = await childDatabaseEnv(env);
  const child = spawn(NODE, ['src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', WORKERS: '1', ...database, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"service started"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({
          child,
          url: match[1]!,
          output: () => output,
          exited,
          async stop() {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before it started:\n${output}`));
    });
  });
}

/** Runs `node src/main.ts` expecting it to refuse to start; returns its exit code and output. */
export async function runServiceExpectingFailure(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const database = await childDatabaseEnv(env);
  const child = spawn(NODE, ['src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...database, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}
