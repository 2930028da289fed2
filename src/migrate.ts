// `npm run migrate`: applies the pending migrations (this service's and graphile-worker's) and
// exits. DATABASE_URL: that database, as a role with DDL rights. Unset: the embedded database
// under DATA_DIR (the running service's, if one serves it; otherwise started for the migration
// and stopped again). Safe beside running processes: the same advisory lock serialises every boot.
import { loadConfigOrExit } from './platform/config.ts';
import { createLogger } from './platform/logger.ts';
import { findRunningEmbedded, startEmbeddedPostgres, type EmbeddedPostgres } from './platform/database/embedded.ts';
import { migrate } from './platform/database/migrate.ts';
import { createPool } from './platform/database/pool.ts';
import { workerLogger } from './platform/jobs.ts';

const config = loadConfigOrExit();
const log = createLogger(config.logLevel);
let embedded: EmbeddedPostgres | undefined;
try {
  let url = config.databaseUrl ?? (await findRunningEmbedded(config.dataDir));
  if (url === undefined) {
    embedded = await startEmbeddedPostgres(config.dataDir, { info: (msg) => log.info(msg), warn: (msg) => log.warn(msg) });
    url = embedded.url;
  }
  const db = createPool({ url, max: 2, applicationName: `migrate-${process.pid}` });
  try {
    const applied = await migrate(db, workerLogger(log));
    log.info({ applied }, applied.length > 0 ? 'database migrations applied' : 'database schema already up to date');
  } finally {
    await db.end();
  }
  await embedded?.stop();
  log.flush();
  process.exit(0);
} catch (error) {
  log.fatal({ err: error }, 'migration failed');
  await embedded?.stop().catch(() => undefined);
  log.flush();
  process.exit(1);
}
