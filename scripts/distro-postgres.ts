// The distribution's PostgreSQL (Debian's `postgresql` package) for a second server version in
// `npm test`: finds its binaries under /usr/lib/postgresql/<version>/bin, installing the package
// when they are missing and we are root (never a silent skip), then runs the database-facing test
// files below against a throwaway cluster of it through DATABASE_URL, and removes the cluster
// whatever the outcome, exiting with the tests' exit code.
//
//   node scripts/distro-postgres.ts            the list below
//   node scripts/distro-postgres.ts FILE...    those test files instead
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster, type Cluster, type ClusterBinaries } from './postgres-cluster.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DISTRO_ROOT = '/usr/lib/postgresql';
/** The oldest server the service supports. */
const VERSION_MIN = 14;

/**
 * What a second server version can break, in about 2-3 minutes on 2 cores (the whole suite runs on
 * the embedded PostgreSQL before): SQL and DDL (migrations), the ledger's locking and numbering,
 * the payout and settlement state machines with their jobs (graphile-worker's own SQL), payouts in
 * doubt and the recovery sweep, webhook delivery jobs, the events list (xid8 snapshot paging),
 * several processes on one database, the least-privilege runtime role (PostgreSQL 15 took CREATE
 * on schema public away from PUBLIC), and the rate limit shared through the database. Files about
 * the embedded cluster itself (lock files, its watchdog, backups, reading runtime.json after a
 * kill -9 as settlements/immediate.test.ts does) stay out.
 */
export const DISTRO_TEST_FILES = [
  'test/platform/migrate.test.ts',
  'test/platform/transaction.test.ts',
  'test/platform/shared-database.test.ts',
  'test/platform/least-privilege.test.ts',
  'test/platform/rate-limit-shared.test.ts',
  'test/ledger/ledger.test.ts',
  'test/ledger/lock-order.test.ts',
  'test/ledger/movement-numbers.test.ts',
  'test/payouts/lifecycle.test.ts',
  'test/payouts/concurrency.test.ts',
  'test/payouts/doubt.test.ts',
  'test/payouts/recovery.test.ts',
  'test/settlements/pipeline.test.ts',
  'test/webhooks/delivery.test.ts',
  'test/events/list.test.ts',
  'test/admin/ledger-check-cli.test.ts',
];

function installedVersions(root: string): number[] {
  const entries = fs.existsSync(root) ? fs.readdirSync(root) : [];
  return entries
    .filter((name) => /^\d+$/.test(name) && fs.existsSync(path.join(root, name, 'bin', 'postgres')))
    .map(Number)
    .sort((a, b) => b - a);
}

function install(root: string, asRoot: boolean): void {
  if (!asRoot) {
    throw new Error(
      `no PostgreSQL server under ${root}/*/bin/postgres. Install the distribution's server first, as root:\n` +
        '  apt-get update && apt-get install -y postgresql',
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  console.log(`no PostgreSQL server under ${root}; running: apt-get update && apt-get install -y postgresql`);
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', 'postgresql'], { stdio: 'inherit', env });
}

/** The newest installed server's binaries, installing the package first when there is none (as root). */
export function distroBinaries(
  { root = DISTRO_ROOT, asRoot = process.getuid?.() === 0 }: { root?: string; asRoot?: boolean } = {},
): ClusterBinaries & { version: number } {
  if (installedVersions(root).length === 0) install(root, asRoot);
  const version = installedVersions(root)[0];
  if (version === undefined) throw new Error(`apt-get install postgresql left no server under ${root}`);
  if (version < VERSION_MIN) throw new Error(`PostgreSQL ${version} is older than the ${VERSION_MIN} the service supports`);
  const bin = path.join(root, String(version), 'bin');
  return { version, initdb: path.join(bin, 'initdb'), pg_ctl: path.join(bin, 'pg_ctl') };
}

function runTests(files: string[], databaseUrl: string): Promise<number> {
  const child = spawn(path.join(ROOT, 'node_modules/.bin/node'), ['--test', '--test-concurrency=1', ...files], {
    cwd: ROOT, stdio: 'inherit', env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

async function main(): Promise<number> {
  const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : DISTRO_TEST_FILES;
  const bin = distroBinaries();
  const cluster: Cluster = await startCluster(bin);
  console.log(`PostgreSQL ${bin.version} (the distribution's) on 127.0.0.1:${cluster.port}, cluster in ${cluster.dir}; ${files.length} test files`);
  const stop = () => void cluster.destroy().finally(() => process.exit(130));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await runTests(files, cluster.url);
  } finally {
    await cluster.destroy();
    console.log(`PostgreSQL ${bin.version} cluster stopped and removed`);
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`distro-postgres: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
