// /readyz: 200 only when the database answers and every job runner of the process is running;
// otherwise the contract's Error body (503 SERVICE_UNAVAILABLE) whose detail names each part
// that is not ready.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { startTestService, type TestService } from '../support/service.ts';
import { json } from '../support/http.ts';

let service: TestService;
let admin: pg.Client;
before(async () => {
  service = await startTestService({ WORKERS: '1', WEBHOOK_WORKERS: '1' });
  const { url } = JSON.parse(await fs.readFile(path.join(service.dataDir, 'runtime.json'), 'utf8')) as { url: string };
  admin = new pg.Client({ connectionString: url.replace(/\/service$/, '/postgres') });
  await admin.connect();
});
after(async () => {
  await admin.end();
  await service.stop();
});

async function notReady(): Promise<string> {
  const response = await fetch(`${service.url}/readyz`);
  assert.equal(response.status, 503);
  assert.ok(response.headers.get('retry-after'));
  const body = await json(response);
  assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'message']);
  assert.equal(body['code'], 'SERVICE_UNAVAILABLE');
  return String(body['detail']);
}

test('ready: the database answers and both job runners run', async () => {
  const response = await fetch(`${service.url}/readyz`);
  assert.equal(response.status, 200);
  assert.deepEqual(await json(response), { status: 'ok' });
});

test('a database that refuses connections: 503 naming the database', async () => {
  await admin.query('ALTER DATABASE service WITH ALLOW_CONNECTIONS false');
  await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'service'");
  try {
    assert.match(await notReady(), /^database: does not answer/);
  } finally {
    await admin.query('ALTER DATABASE service WITH ALLOW_CONNECTIONS true');
  }
  const deadline = Date.now() + 15_000;
  let status = 0;
  while (status !== 200 && Date.now() < deadline) {
    status = (await fetch(`${service.url}/readyz`)).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(status, 200, 'ready again once the database is back');
});

test('a job runner that is not running: 503 naming it, and only it', async () => {
  await service.workers.webhooks!.stop();
  assert.equal(await notReady(), 'webhookWorkers: the job runner is not running');
  await service.workers.jobs!.stop();
  assert.equal(await notReady(), 'workers: the job runner is not running; webhookWorkers: the job runner is not running');
  assert.equal((await fetch(`${service.url}/healthz`)).status, 200, 'alive all the same');
});
