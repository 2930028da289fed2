// The embedded PostgreSQL also listens on a unix socket in its data directory, and the service's
// own pools use it (a round trip over loopback TCP costs both sides more CPU); other processes and
// tools keep the TCP URL of runtime.json. A data directory whose path is too long for a socket, or
// would need quoting, has TCP only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { socketDirFor, startEmbeddedPostgres } from '../../src/platform/database/embedded.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { startService } from '../../src/service.ts';
import { tempDataDir } from '../support/service.ts';

const quiet = { info: () => undefined, warn: () => undefined };

/** The client address PostgreSQL sees for a connection made with this URL (null: a unix socket). */
async function clientAddress(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ address: string | null }>('SELECT host(inet_client_addr()) AS address');
    return rows[0]!.address;
  } finally {
    await client.end();
  }
}

test('the embedded cluster answers on its unix socket (localUrl) and on 127.0.0.1 (url, the one runtime.json gives)', async () => {
  const dataDir = await tempDataDir();
  const database = await startEmbeddedPostgres(dataDir, quiet);
  try {
    assert.notEqual(database.localUrl, database.url);
    assert.equal(await clientAddress(database.localUrl), null);
    assert.equal(await clientAddress(database.url), '127.0.0.1');
    const runtime = JSON.parse(await fs.readFile(path.join(dataDir, 'runtime.json'), 'utf8')) as { url: string };
    assert.equal(runtime.url, database.url);
  } finally {
    await database.stop();
  }
});

test('the service\'s own connections to its embedded cluster come over the unix socket', async () => {
  const dataDir = await tempDataDir();
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', WORKERS: '0', WEBHOOK_WORKERS: '0', DATA_DIR: dataDir });
  const service = await startService(config, createLogger(config.logLevel));
  try {
    const { rows } = await service.db.query<{ address: string | null }>('SELECT host(inet_client_addr()) AS address');
    assert.equal(rows[0]!.address, null);
  } finally {
    await service.stop();
  }
});

test('a data directory too long for a socket path has TCP only, and works', async () => {
  const base = await tempDataDir();
  await fs.chmod(base, 0o711); // the cluster's own user (when run as root) reaches its directory inside
  const dataDir = path.join(base, 'a-directory-name-long-enough-that-the-socket-path-would-not-fit-in-sun-path');
  assert.equal(socketDirFor(path.join(dataDir, 'postgres')), undefined);
  const database = await startEmbeddedPostgres(dataDir, quiet);
  try {
    assert.equal(database.localUrl, database.url);
    assert.equal(await clientAddress(database.localUrl), '127.0.0.1');
  } finally {
    await database.stop();
  }
});

test('socketDirFor: a short plain path is used as it is; one that would need quoting is not', () => {
  assert.equal(socketDirFor('/tmp/svc-test-abc/postgres'), '/tmp/svc-test-abc/postgres');
  assert.equal(socketDirFor('/tmp/with space/postgres'), undefined);
  assert.equal(socketDirFor("/tmp/it's/postgres"), undefined);
  assert.equal(socketDirFor(`/${'x'.repeat(85)}`), undefined);
});
