// `npm run admin -- backup create|restore`: backups of the embedded database.
//
// The embedded PostgreSQL package ships initdb, pg_ctl and postgres only: no pg_dump, pg_restore
// or pg_basebackup (and a pg_dump older than the server refuses to dump it). So a backup is a
// cold copy of DATA_DIR: the cluster's files with the keys and credentials beside them (secrets
// stored in the database are sealed with those keys), taken while nothing runs the cluster, so
// the copy is exactly a cleanly stopped database. Restore unpacks it into an empty DATA_DIR.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { findRunningEmbedded } from '../platform/database/embedded.ts';
import type { Config } from '../platform/config.ts';
import { CommandError, UsageError } from './errors.ts';

const run = promisify(execFile);
/** Bounds tar's run and its listing (a data directory is tens of MB; its listing a few thousand lines). */
const TAR_TIMEOUT_MS = 10 * 60_000;
const TAR_OUTPUT_MAX_BYTES = 64 * 1024 * 1024;
/** Written by the process that serves the cluster; never restored (it names a process long gone). */
const RUNTIME_FILES = ['./runtime.json', './postgres/postmaster.pid', './postgres/postmaster.opts'];

export const BACKUP_COMMANDS = ['backup create', 'backup restore'];
export const BACKUP_USAGE = `  backup create [--file F]            (embedded database, service stopped; default backup-<time>.tar.gz)
  backup restore --file F             (into an empty DATA_DIR)`;

async function refuseIfServed(config: Config): Promise<void> {
  if (config.databaseUrl !== undefined) {
    throw new CommandError('backup works on the embedded database; for DATABASE_URL use pg_dump/pg_restore of the server\'s own version');
  }
  if ((await findRunningEmbedded(config.dataDir)) !== undefined) {
    throw new CommandError(`the embedded database in ${config.dataDir} is running: stop the service first (a file copy of a running cluster is not consistent)`);
  }
}

async function create(config: Config, file: string | undefined): Promise<{ file: string; bytes: number }> {
  await refuseIfServed(config);
  const hasCluster = await fs.stat(path.join(config.dataDir, 'postgres', 'PG_VERSION')).then(() => true, () => false);
  if (!hasCluster) throw new CommandError(`${config.dataDir} holds no embedded database`);
  const target = path.resolve(file ?? `backup-${new Date().toISOString().replace(/[:.]/g, '-')}.tar.gz`);
  if (target.startsWith(`${config.dataDir}${path.sep}`)) throw new CommandError('--file must be outside DATA_DIR');
  const excludes = RUNTIME_FILES.map((name) => `--exclude=${name}`);
  // written beside its final name and renamed: a backup that is there is complete
  const partial = `${target}.partial`;
  await run('tar', ['-czf', partial, ...excludes, '-C', config.dataDir, '.'], { timeout: TAR_TIMEOUT_MS, maxBuffer: TAR_OUTPUT_MAX_BYTES });
  await fs.rename(partial, target);
  return { file: target, bytes: (await fs.stat(target)).size };
}

async function restore(config: Config, file: string): Promise<{ file: string; dataDir: string }> {
  await refuseIfServed(config);
  const source = path.resolve(file);
  const { stdout } = await run('tar', ['-tzf', source], { timeout: TAR_TIMEOUT_MS, maxBuffer: TAR_OUTPUT_MAX_BYTES })
    .catch(() => { throw new CommandError(`${source} is not a readable backup`); });
  if (!stdout.split('\n').includes('./postgres/PG_VERSION')) throw new CommandError(`${source} holds no embedded database`);
  const present = await fs.readdir(config.dataDir).catch(() => []);
  if (present.length > 0) throw new CommandError(`${config.dataDir} is not empty: restore into a new DATA_DIR (nothing is overwritten)`);
  await fs.mkdir(config.dataDir, { recursive: true });
  await run('tar', ['-xzf', source, '-C', config.dataDir], { timeout: TAR_TIMEOUT_MS, maxBuffer: TAR_OUTPUT_MAX_BYTES });
  return { file: source, dataDir: config.dataDir };
}

export async function executeBackup(config: Config, words: string[], file: string | undefined): Promise<object> {
  switch (words.slice(0, 2).join(' ')) {
    case 'backup create':
      return create(config, file);
    case 'backup restore':
      if (file === undefined || file === '') throw new UsageError('--file is required');
      return restore(config, file);
    default:
      throw new UsageError(`unknown command "${words.join(' ')}"`);
  }
}
