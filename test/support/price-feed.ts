// Test support: the reference price feed (npm run price-feed) as a child process on a free port,
// and its control API.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './service.ts';
import type { FeedBehaviour } from '../../price-feed/main.ts';

const NODE = path.join(ROOT, 'node_modules/.bin/node');
const START_TIMEOUT_MS = 20_000;

export interface PriceFeed {
  child: ChildProcess;
  url: string;
  output: () => string;
  stop(): Promise<void>;
  /** How the feed answers from now on (unnamed fields: the normal answer). */
  behave(behaviour: Partial<FeedBehaviour>): Promise<void>;
  setMid(pair: string, mid: string): Promise<void>;
  forget(pair: string): Promise<void>;
  /** Quote requests the feed has served. */
  requests(): Promise<number>;
}

export async function spawnPriceFeed(): Promise<PriceFeed> {
  const child = spawn(NODE, ['price-feed/main.ts', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`price feed did not start:\n${output}`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.includes('"price feed started"'));
      if (line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => reject(new Error(`price feed exited before it started:\n${output}`)));
  });
  const control = async (method: string, controlPath: string, body?: unknown) => {
    const response = await fetch(`${url}${controlPath}`, {
      method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    if (response.status !== 200) throw new Error(`price feed control ${method} ${controlPath} answered ${response.status}`);
    return response.json() as Promise<Record<string, unknown>>;
  };
  const pairPath = (pair: string) => `/control/pairs/${pair}`;
  return {
    child, url, output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
    async behave(behaviour) {
      await control('POST', '/control/behaviour', behaviour);
    },
    async setMid(pair, mid) {
      await control('PUT', pairPath(pair), { mid });
    },
    async forget(pair) {
      await control('DELETE', pairPath(pair));
    },
    requests: async () => Number((await control('GET', '/control/requests'))['rates']),
  };
}
