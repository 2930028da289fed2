// The fault campaign's processes: service processes as `npm start` runs them (`node src/main.ts`),
// each on a fixed port so that a restart comes back where the load expects it, killed with SIGKILL
// and started again on the same environment.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeLoopbackPort } from './postgres-cluster.ts';

const READY_TIMEOUT_MS = 60_000;

export interface ServiceProcess {
  name: string;
  url: string;
  /** Whether it answers client traffic (the others are worker processes). */
  api: boolean;
  running(): boolean;
  start(): Promise<void>;
  kill(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
}

export function nodeBinary(root: string): string {
  return path.join(root, 'node_modules/.bin/node');
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited before it was ready (${child.exitCode ?? child.signalCode})`);
    const status = await fetch(`${url}/readyz`).then((r) => r.status, () => 0);
    if (status === 200) return;
    await sleep(200);
  }
  throw new Error(`not ready within ${READY_TIMEOUT_MS} ms`);
}

export async function serviceProcess(root: string, name: string, api: boolean, env: Record<string, string>, logDir: string): Promise<ServiceProcess> {
  const port = await freeLoopbackPort();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `chaos-${name}-`));
  const url = `http://127.0.0.1:${port}`;
  const log = path.join(logDir, `${name}.log`);
  let child: ChildProcess | undefined;
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const kill = async () => {
    if (!running()) return;
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child!.kill('SIGKILL');
    await exited;
  };
  return {
    name, url, api, running, kill,
    async start() {
      const handle = await fs.open(log, 'a');
      child = spawn(nodeBinary(root), ['src/main.ts'], {
        cwd: root,
        env: { ...process.env, ...env, MODE: 'sandbox', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
        stdio: ['ignore', handle.fd, handle.fd],
      });
      await handle.close();
      await waitReady(url, child);
    },
    async stop() {
      if (running()) {
        const exited = new Promise((resolve) => child!.once('exit', resolve));
        child!.kill('SIGTERM');
        await Promise.race([exited, sleep(20_000)]);
        if (running()) await kill();
      }
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
