// A throwaway PostgreSQL cluster for test runs and fault campaigns: initdb in a temporary directory,
// a server on a free loopback port, an admin role with a random password, and a stop that can be
// immediate (a crash as far as the server knows) or final (stopped and its directory removed).
// PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` system user.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freeLoopbackPort, runAsUser } from '../src/platform/database/embedded.ts';

export { freeLoopbackPort };

const run = promisify(execFile);
const PG_CTL_TIMEOUT_SECONDS = 60;
const ADMIN_USER = 'admin';

export interface ClusterBinaries {
  initdb: string;
  pg_ctl: string;
}

export interface Cluster {
  /** Admin URL on the `postgres` database: may create databases and roles. */
  url: string;
  port: number;
  dir: string;
  /** pg_ctl stop -m immediate: every server process gone at once, no checkpoint. */
  stopImmediately(): Promise<void>;
  /** Starts it again on the same port (after stopImmediately). */
  start(): Promise<void>;
  /** Stops it (fast, then immediate if need be) and removes its directory. */
  destroy(): Promise<void>;
}

/** initdb into a new temporary directory and start the server; removed again at process exit. */
export async function startCluster(bin: ClusterBinaries): Promise<Cluster> {
  const runAs = await runAsUser();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pg-cluster-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const pgData = path.join(dir, 'data');
  const password = randomBytes(18).toString('base64url');
  const pwFile = path.join(dir, 'password');
  await fs.writeFile(pwFile, `${password}\n`, { mode: 0o600 });
  if (runAs.uid !== undefined) {
    await fs.chown(dir, runAs.uid, runAs.gid ?? runAs.uid);
    await fs.chown(pwFile, runAs.uid, runAs.gid ?? runAs.uid);
  }
  const env = { ...process.env, LC_ALL: 'C.UTF-8' };
  await run(bin.initdb, [
    `--pgdata=${pgData}`, '--auth=scram-sha-256', `--username=${ADMIN_USER}`, `--pwfile=${pwFile}`,
    '--encoding=UTF8', '--locale=C.UTF-8', '--no-instructions',
  ], { ...runAs, env });
  await fs.rm(pwFile);
  const port = await freeLoopbackPort();
  const pgCtl = (args: string[]) => run(bin.pg_ctl, [...args, '-D', pgData, '-w', '-t', String(PG_CTL_TIMEOUT_SECONDS)], { ...runAs, env });
  const start = async () => {
    await pgCtl(['start', '-l', path.join(dir, 'server.log'), '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=300`]);
  };
  await start();
  return {
    url: `postgresql://${ADMIN_USER}:${password}@127.0.0.1:${port}/postgres`,
    port,
    dir,
    start,
    async stopImmediately() {
      await pgCtl(['stop', '-m', 'immediate']);
    },
    async destroy() {
      await pgCtl(['stop', '-m', 'fast']).catch(() => pgCtl(['stop', '-m', 'immediate'])).catch(() => undefined);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
