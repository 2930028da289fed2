// Two processes on one embedded database: the owner (which started it under DATA_DIR) and a
// follower given the URL of its runtime.json. When the owner restarts, the database comes back
// on the same port, so the follower rides out the gap with 503s and then serves again; both
// still stop cleanly. Killed with SIGKILL, the owner leaves the postmaster behind: the next owner
// stops that orphan and starts it again on the same port too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { spawnService, tempDataDir, type ChildService } from '../support/service.ts';
import { expectError, requestToken } from '../support/http.ts';
import { eventually } from '../support/payouts.ts';

const newKey = () => randomBytes(32).toString('base64');
/** Generous for a busy 2-core machine: an owner's start takes a few seconds. */
const RECOVERY_MAX_MS = 20_000;

const runtimeUrl = async (dataDir: string) =>
  (JSON.parse(await fs.readFile(path.join(dataDir, 'runtime.json'), 'utf8')) as { url: string }).url;

const tokenStatus = (service: ChildService) => requestToken(service.url, { scope: 'payouts' }).then((r) => r.status, () => 0);

async function expectServesAgain(follower: ChildService): Promise<void> {
  assert.equal(await eventually(() => tokenStatus(follower), (s) => s === 200, RECOVERY_MAX_MS), 200, 'the follower serves again');
  const ready = await eventually(() => fetch(`${follower.url}/readyz`).then((r) => r.status), (s) => s === 200, RECOVERY_MAX_MS);
  assert.equal(ready, 200, "the follower's /readyz is ready again");
}

test('an owner restart keeps the port: the follower answers 503 meanwhile, then serves again; both stop cleanly', async () => {
  const dataDir = await tempDataDir();
  const keys = { TOKEN_SIGNING_KEY: newKey(), CLIENT_SECRET_KEY: newKey(), WORKERS: '1' };
  let owner = await spawnService({ ...keys, DATA_DIR: dataDir });
  const url = await runtimeUrl(dataDir);
  const follower = await spawnService({ ...keys, DATABASE_URL: url, DATA_DIR: await tempDataDir() });
  try {
    assert.equal(await tokenStatus(follower), 200);

    // a clean restart of the owner: the database is stopped, then started again
    assert.equal(await owner.stop(), 0);
    const during = await requestToken(follower.url, { scope: 'payouts' });
    await expectError(during, 503, 'SERVICE_UNAVAILABLE');
    assert.ok(during.headers.get('retry-after'));
    assert.equal((await fetch(`${follower.url}/readyz`)).status, 503);
    owner = await spawnService({ ...keys, DATA_DIR: dataDir });
    assert.equal(await runtimeUrl(dataDir), url, 'the same URL, port included');
    await expectServesAgain(follower);

    // a killed owner: the next one stops the orphaned postmaster and starts it on the same port
    owner.child.kill('SIGKILL');
    await owner.exited;
    owner = await spawnService({ ...keys, DATA_DIR: dataDir });
    assert.equal(await runtimeUrl(dataDir), url, 'the same URL after a kill -9 too');
    await expectServesAgain(follower);
    assert.equal(follower.child.exitCode, null, 'the follower never exited');
  } finally {
    assert.deepEqual(await Promise.all([follower.stop(), owner.stop()]), [0, 0]);
  }
});
