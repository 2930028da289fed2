// The service as `npm start` runs it: configuration refusals, production's refusals, restarts
// (clean and after kill -9), stale lock files and API-only processes (two processes sharing one
// DATABASE_URL: shared-database.test.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { runServiceExpectingFailure, spawnService, startTestService, tempDataDir } from '../support/service.ts';
import { bearer, json, requestToken, token } from '../support/http.ts';

const newKey = () => randomBytes(32).toString('base64');
const pgPidFile = (dataDir: string) => path.join(dataDir, 'postgres', 'postmaster.pid');

/** Running, as opposed to gone or a zombie waiting for a parent that never reaps it. */
async function isRunning(pid: number): Promise<boolean> {
  try {
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function codesStatus(url: string, accessToken: string): Promise<number> {
  return (await fetch(`${url}/v2/purpose-codes`, { headers: bearer(accessToken) })).status;
}

describe('configuration', () => {
  test('a bad variable stops the boot with exit 78 and a message naming it', async () => {
    const port = await runServiceExpectingFailure({ PORT: 'eighty' });
    assert.equal(port.code, 78);
    assert.match(port.output, /Invalid configuration: PORT must be integer \(got "eighty"\)/);
    const mode = await runServiceExpectingFailure({ MODE: 'staging' });
    assert.equal(mode.code, 78);
    assert.match(mode.output, /MODE must be one of sandbox, production, mock/);
    const rate = await runServiceExpectingFailure({ RATE_LIMIT_PER_MINUTE: '0' });
    assert.equal(rate.code, 78);
    assert.match(rate.output, /RATE_LIMIT_PER_MINUTE/);
  });
});

describe('production mode', () => {
  test('refuses to start without its keys', async () => {
    const result = await runServiceExpectingFailure({ MODE: 'production', DATA_DIR: await tempDataDir() });
    assert.equal(result.code, 78);
    assert.match(result.output, /TOKEN_SIGNING_KEY is required in production mode/);
  });

  test('refuses a published default secret as a key', async () => {
    const result = await runServiceExpectingFailure({
      MODE: 'production',
      TOKEN_SIGNING_KEY: 'c2FuZGJveC1vbmx5LXRva2VuLXNpZ25pbmcta2V5LWRvLW5vdC11c2U=',
      CLIENT_SECRET_KEY: newKey(),
    });
    assert.equal(result.code, 78);
    assert.match(result.output, /TOKEN_SIGNING_KEY is a published default secret/);
  });

  test('refuses a database whose clients still have the demo secrets', async () => {
    const dataDir = await tempDataDir();
    const sandbox = await startTestService({ DATA_DIR: dataDir });
    await sandbox.stop();
    const keys = JSON.parse(await fs.readFile(path.join(dataDir, 'keys.json'), 'utf8')) as Record<string, string>;
    const result = await runServiceExpectingFailure({
      MODE: 'production',
      DATA_DIR: dataDir,
      TOKEN_SIGNING_KEY: keys['tokenSigningKey']!,
      CLIENT_SECRET_KEY: keys['clientSecretKey']!,
    });
    assert.equal(result.code, 1);
    assert.match(result.output, /published default secret: demo-source-1, demo-source-2/);
    await assert.rejects(fs.stat(pgPidFile(dataDir)), 'the embedded database was stopped');
  });

  test('never seeds: no demo members, no demo clients', async () => {
    const dataDir = await tempDataDir();
    const service = await spawnService({ MODE: 'production', DATA_DIR: dataDir, TOKEN_SIGNING_KEY: newKey(), CLIENT_SECRET_KEY: newKey() });
    try {
      assert.equal((await requestToken(service.url)).status, 401);
      assert.doesNotMatch(service.output(), /sandbox world seeded/);
      const sandboxControl = await fetch(`${service.url}/v2/sandbox/prefund`, { method: 'POST' });
      assert.equal(sandboxControl.status, 404, 'no sandbox routes in production');
    } finally {
      assert.equal(await service.stop(), 0);
    }
  });
});

describe('restarts', () => {
  test('a clean restart keeps the data, and tokens issued before it stay valid', async () => {
    const dataDir = await tempDataDir();
    const first = await spawnService({ DATA_DIR: dataDir });
    const accessToken = await token(first.url, { scope: 'payouts member' });
    const created = await json(await fetch(`${first.url}/v2/oauth-clients`, {
      method: 'POST', headers: { ...bearer(accessToken), 'content-type': 'application/json' }, body: '{"name":"kept"}',
    }));
    // log lines are written in blocks, but an idle service still shows them within the flush interval
    const deadline = Date.now() + 2000;
    while (!/"path":"\/v2\/oauth-clients"/.test(first.output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.match(first.output(), /"path":"\/v2\/oauth-clients","statusCode":201/, 'the access-log line, before the service stops');
    assert.equal(await first.stop(), 0);
    assert.match(first.output(), /"msg":"stopped"/);
    assert.match(first.output(), /"path":"\/v2\/oauth-clients","statusCode":201/, 'one access-log line per request');
    for (const secret of ['demo-secret-1', accessToken, String(created['clientSecret']), 'Bearer', 'Basic ']) {
      assert.ok(!first.output().includes(secret), `the log shows ${secret.slice(0, 12)}`);
    }
    await assert.rejects(fs.stat(pgPidFile(dataDir)), 'PostgreSQL stopped with the service');

    const second = await spawnService({ DATA_DIR: dataDir });
    try {
      assert.doesNotMatch(second.output(), /sandbox world seeded/);
      assert.equal(await codesStatus(second.url, accessToken), 200);
      const again = await requestToken(second.url, { clientId: String(created['clientId']), secret: String(created['clientSecret']) });
      assert.equal(again.status, 200);
    } finally {
      assert.equal(await second.stop(), 0);
    }
  });

  test('after kill -9 the next start stops the orphaned PostgreSQL and serves the same data', async () => {
    const dataDir = await tempDataDir();
    const first = await spawnService({ DATA_DIR: dataDir });
    const accessToken = await token(first.url, { scope: 'payouts' });
    first.child.kill('SIGKILL');
    await first.exited;
    const orphan = Number((await fs.readFile(pgPidFile(dataDir), 'utf8')).split('\n')[0]);
    assert.ok(await isRunning(orphan), 'the postmaster outlived the service');

    const second = await spawnService({ DATA_DIR: dataDir });
    try {
      assert.match(second.output(), /stopping an orphaned PostgreSQL/);
      assert.equal(await isRunning(orphan), false, 'the orphan is gone');
      assert.equal(await codesStatus(second.url, accessToken), 200);
    } finally {
      assert.equal(await second.stop(), 0);
    }
  });

  test('a stale postmaster.pid naming a process that is not PostgreSQL is removed, nothing else', async () => {
    const dataDir = await tempDataDir();
    const first = await spawnService({ DATA_DIR: dataDir });
    assert.equal(await first.stop(), 0);
    // a lock file left by a crash whose pid now belongs to another program (this test runner)
    await fs.writeFile(pgPidFile(dataDir), `${process.pid}\n${path.join(dataDir, 'postgres')}\n0\n5432\n`);
    const second = await spawnService({ DATA_DIR: dataDir });
    try {
      assert.match(second.output(), /removing stale postmaster.pid/);
      assert.equal((await requestToken(second.url)).status, 200);
    } finally {
      assert.equal(await second.stop(), 0);
    }
  });

  test('a second service on a DATA_DIR in use is refused, and the first keeps serving', async () => {
    const dataDir = await tempDataDir();
    const first = await spawnService({ DATA_DIR: dataDir });
    try {
      const second = await runServiceExpectingFailure({ DATA_DIR: dataDir });
      assert.equal(second.code, 1);
      assert.match(second.output, /in use by process/);
      assert.equal((await fetch(`${first.url}/readyz`)).status, 200);
    } finally {
      assert.equal(await first.stop(), 0);
    }
  });
});

describe('processes', () => {
  test('WORKERS=0 starts an API-only process; the default runs the workers in-process', async () => {
    const dataDir = await tempDataDir();
    const apiOnly = await spawnService({ DATA_DIR: dataDir, WORKERS: '0' });
    try {
      assert.equal((await fetch(`${apiOnly.url}/readyz`)).status, 200);
      assert.doesNotMatch(apiOnly.output(), /Worker connected/);
    } finally {
      assert.equal(await apiOnly.stop(), 0);
    }
    const full = await spawnService({ DATA_DIR: dataDir });
    try {
      const deadline = Date.now() + 10_000;
      while (!/Worker connected/.test(full.output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.match(full.output(), /Worker connected/);
    } finally {
      assert.equal(await full.stop(), 0);
    }
  });
});
