// Test support: a real local EVM chain, Hardhat's node (EDR) as a separate process on a free
// loopback port. Starts with automine (a block per transaction); tests switch to interval or
// manual mining through the node's own RPC methods (evm_setAutomine, evm_setIntervalMining, evm_mine).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeLoopbackPort } from '../../src/platform/database/embedded.ts';
import { ROOT } from './service.ts';

const NODE = path.join(ROOT, 'node_modules/.bin/node');
const HARDHAT_CLI = path.join(ROOT, 'node_modules/hardhat/dist/src/cli.js');
const CONFIG = path.join(ROOT, 'test/support/hardhat.config.ts');
const START_TIMEOUT_MS = 60_000;
export const LOCAL_CHAIN_ID = 31337;

/** Hardhat's well-known development accounts (funded with test ether on every start; worthless anywhere else). */
export const DEV_KEYS = {
  deployer: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  treasury: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
} as const;

export interface HardhatNode {
  url: string;
  child: ChildProcess;
  request<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export async function startHardhat(options: { chainId?: number } = {}): Promise<HardhatNode> {
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(NODE, [HARDHAT_CLI, '--config', CONFIG, 'node', '--hostname', '127.0.0.1', '--port', String(port), '--chain-id', String(options.chainId ?? LOCAL_CHAIN_ID)], {
    cwd: ROOT,
    env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', DO_NOT_TRACK: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`hardhat node exited before it was ready:\n${output}`);
    try {
      await rpc(url, 'eth_chainId');
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`hardhat node not ready after ${START_TIMEOUT_MS} ms:\n${output}`);
      }
      await sleep(200);
    }
  }
  return {
    url,
    child,
    request: (method, params) => rpc(url, method, params),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
