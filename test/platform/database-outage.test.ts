// When the database refuses connections: 503 SERVICE_UNAVAILABLE with Retry-After and nothing internal in the body,
// /readyz 503, /healthz still 200; and the service recovers by itself when the database returns.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { startTestService, type TestService } from '../support/service.ts';
import { json, requestToken } from '../support/http.ts';

let service: TestService;
let admin: pg.Client;
before(async () => {
  service = await startTestService();
  const { url } = JSON.parse(await fs.readFile(path.join(service.dataDir, 'runtime.json'), 'utf8')) as { url: string };
  admin = new pg.Client({ connectionString: url.replace(/\/service$/, '/postgres') });
  await admin.connect();
});
after(async () => {
  await admin.end();
  await service.stop();
});

test('an outage is a 503 SERVICE_UNAVAILABLE with Retry-After, and a 503 on /readyz, and heals when the database is back', async () => {
  await admin.query('ALTER DATABASE service WITH ALLOW_CONNECTIONS false');
  await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'service'");
  try {
    const response = await requestToken(service.url);
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('retry-after'), '2');
    const body = await json(response);
    assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'message']);
    assert.equal(body['code'], 'SERVICE_UNAVAILABLE');
    assert.doesNotMatch(JSON.stringify(body), /database|postgres|connect|terminat|at \w+ \(/i);
    assert.ok(response.headers.get('x-request-id'));

    const ready = await fetch(`${service.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.ok(ready.headers.get('retry-after'));
    assert.equal((await json(ready))['code'], 'SERVICE_UNAVAILABLE');
    assert.equal((await fetch(`${service.url}/healthz`)).status, 200);
  } finally {
    await admin.query('ALTER DATABASE service WITH ALLOW_CONNECTIONS true');
  }
  assert.equal((await requestToken(service.url)).status, 200);
  assert.equal((await fetch(`${service.url}/readyz`)).status, 200);
});
