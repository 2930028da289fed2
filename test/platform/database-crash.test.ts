// The database crashes under load, while API requests and jobs run: the embedded postmaster
// killed with SIGKILL, or an external database stopped immediately (SIGQUIT, what
// `pg_ctl stop -m immediate` sends). The service process lives on, answers 503
// SERVICE_UNAVAILABLE with Retry-After (never a 500, never a refused connection) until the
// database's owner has restarted it on the same port, then serves again, finishes the payouts
// and cancellations caught mid-way, and still stops cleanly on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnService, tempDataDir, type ChildService } from '../support/service.ts';
import { startEmbeddedPostgres } from '../../src/platform/database/embedded.ts';
import { bearer, token } from '../support/http.ts';
import { eventually, payoutApi, payoutBody } from '../support/payouts.ts';

const newKey = () => randomBytes(32).toString('base64');
const PAYOUTS = 6;
/** Cash payouts, with the partner (PNDG), whose cancellation jobs ask the partner when the crash comes. */
const CANCELLATIONS = 4;
/** The load: one request each LOAD_INTERVAL_MS, at most LOAD_REQUESTS_MAX of them. */
const LOAD_INTERVAL_MS = 25;
const LOAD_REQUESTS_MAX = 1_200;
/** Generous for a busy 2-core machine: the restart itself takes about a second. */
const RECOVERY_MAX_MS = 20_000;
const ENV = { WORKERS: '2', SANDBOX_RAIL_LATENCY_MS: '400', PARTNER_TIMEOUT_MS: '500', PAYOUT_SUBMISSION_RECOVERY_SECONDS: '1' };

interface Answer {
  at: number;
  status: number;
  code?: string;
  retryAfter?: string | null;
  keys?: string[];
  refused?: string;
}

async function postmasterPid(dataDir: string): Promise<number> {
  const text = await fs.readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8');
  return Number.parseInt(text.split('\n')[0]!, 10);
}

const portOf = async (dataDir: string) =>
  new URL((JSON.parse(await fs.readFile(path.join(dataDir, 'runtime.json'), 'utf8')) as { url: string }).url).port;

async function ask(url: string, init: RequestInit = {}): Promise<Answer> {
  const at = Date.now();
  try {
    const response = await fetch(url, init);
    const body = response.headers.get('content-type')?.startsWith('application/json') ? ((await response.json()) as Record<string, unknown>) : {};
    return { at, status: response.status, code: body['code'] as string | undefined, retryAfter: response.headers.get('retry-after'), keys: Object.keys(body).sort() };
  } catch (error) {
    return { at, status: 0, refused: String((error as { cause?: unknown }).cause ?? error) };
  }
}

/**
 * Payouts in flight and cancellation jobs asking the partner when `crash` stops the database
 * (whose cluster lives under dbDataDir, and whose owner restarts it), under a bounded load.
 */
async function rideOutCrash(service: ChildService, dbDataDir: string, signal: NodeJS.Signals): Promise<void> {
  const dataDir = dbDataDir;
  try {
    const accessToken = await token(service.url, { scope: 'payouts' });
    const api = payoutApi(service.url, accessToken);
    const ids: string[] = [];
    for (let i = 0; i < PAYOUTS; i++) ids.push(String((await api.created(payoutBody('MX_SPEI', { payoutAmt: 100 + i })))['payoutId']));
    const cash: string[] = [];
    for (let i = 0; i < CANCELLATIONS; i++) cash.push(String((await api.created(payoutBody('MX_CASH', { payoutAmt: 200 + i })))['payoutId']));
    for (const status of await Promise.all(cash.map((id) => api.process(id).then((r) => r.status)))) assert.equal(status, 200);
    const port = await portOf(dataDir);

    // cancellation jobs asking the partner and payouts being processed (partners answer after
    // 400 ms), then the crash
    for (const id of cash) assert.equal((await api.cancel(id)).status, 202);
    const processing = ids.map((id) => api.process(id).then((r) => r.status, () => 0));
    await new Promise((r) => setTimeout(r, 150));
    const pid = await postmasterPid(dataDir);
    const killedAt = Date.now();
    process.kill(pid, signal);

    // a bounded load of reads and token requests through the outage, until the service answers again
    const answers: Answer[] = [];
    let recoveredAt: number | undefined;
    for (let i = 0; i < LOAD_REQUESTS_MAX && Date.now() - killedAt < RECOVERY_MAX_MS; i++) {
      const answer = i % 2 === 0
        ? await ask(`${service.url}/v2/payouts/${ids[i % PAYOUTS]}`, { headers: bearer(accessToken) })
        : await ask(`${service.url}/oauth2/token`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from('demo-source-1:demo-secret-1').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials&scope=payouts',
        });
      answers.push(answer);
      if (answer.status === 200 && answers.some((a) => a.status === 503)) {
        recoveredAt = answer.at;
        break;
      }
      await new Promise((r) => setTimeout(r, LOAD_INTERVAL_MS));
    }
    const processStatuses = await Promise.all(processing);

    assert.equal(service.child.exitCode, null, `the service is still running:\n${service.output().slice(-2000)}`);
    const failures = answers.filter((a) => a.status !== 200);
    assert.ok(failures.length > 0, 'the outage was seen');
    for (const failure of failures) {
      assert.equal(failure.refused, undefined, 'no refused connection');
      assert.equal(failure.status, 503, `${JSON.stringify(failure)}\n${service.output().split('\n').filter((l) => l.includes('"level":50')).slice(-5).join('\n')}`);
      assert.equal(failure.code, 'SERVICE_UNAVAILABLE');
      assert.deepEqual(failure.keys, ['code', 'detail', 'message']);
      assert.ok(Number(failure.retryAfter) >= 1, 'Retry-After in seconds');
    }
    // the requests in flight at the crash: processed, or a 503 to retry; never a 500
    for (const status of processStatuses) assert.ok(status === 200 || status === 503, `process answered ${status}`);
    assert.ok(recoveredAt !== undefined, `the service answers again within ${RECOVERY_MAX_MS} ms`);
    const outageMs = Math.max(...failures.map((a) => a.at)) - Math.min(...failures.map((a) => a.at));
    const readyAt = (await eventually(() => ask(`${service.url}/readyz`), (a) => a.status === 200, RECOVERY_MAX_MS));
    assert.equal(readyAt.status, 200, '/readyz is ready again');
    assert.ok(readyAt.at - recoveredAt < RECOVERY_MAX_MS / 2, 'ready within seconds of the database answering again');
    assert.equal(await portOf(dataDir), port, 'the restarted postmaster listens on the same port');
    assert.notEqual(await postmasterPid(dataDir), pid);
    console.log(`# outage (${signal}): ${failures.length} of ${answers.length} answers were 503 over ${outageMs} ms; ` +
      `first 200 ${recoveredAt - killedAt} ms after the kill; /readyz ready ${readyAt.at - killedAt} ms after it`);

    // the payouts caught mid-way are finished by the jobs (re-sent, or their answer recorded); the
    // ones refused with a 503 are processed now, as a client retrying would
    for (const [i, id] of ids.entries()) {
      if (processStatuses[i] === 503) {
        const retried = await api.process(id);
        assert.ok([200, 409].includes(retried.status), `retried process answered ${retried.status}`);
      }
    }
    for (const id of cash) {
      const record = await eventually(() => api.record(id), (r) => r['payoutStatus'] === 'CNCL', 30_000);
      assert.equal(record['payoutStatus'], 'CNCL', `${id} cancelled by its job`);
    }
    for (const id of ids) {
      const record = await eventually(() => api.record(id), (r) => r['payoutStatus'] === 'PRCD', 30_000);
      assert.equal(record['payoutStatus'], 'PRCD', `${id} finished`);
    }
  } finally {
    const code = await service.stop();
    assert.equal(code, 0, `SIGTERM after the recovery exits 0:\n${service.output().slice(-2000)}`);
  }
}

test('a killed postmaster (SIGKILL): 503s with Retry-After meanwhile, restarted by its owner on the same port, queued jobs finish, SIGTERM exits 0', async () => {
  const dataDir = await tempDataDir();
  await rideOutCrash(await spawnService({ ...ENV, DATA_DIR: dataDir }), dataDir, 'SIGKILL');
});

test("an external database stopped immediately (pg_ctl stop -m immediate's SIGQUIT): the service on DATABASE_URL rides it out the same way", async () => {
  // this process owns the cluster (and restarts it); the service only has its URL
  const dbDataDir = await tempDataDir();
  const database = await startEmbeddedPostgres(dbDataDir, { info: () => undefined, warn: () => undefined });
  try {
    const keys = { TOKEN_SIGNING_KEY: newKey(), CLIENT_SECRET_KEY: newKey() };
    await rideOutCrash(await spawnService({ ...ENV, ...keys, DATABASE_URL: database.url, DATA_DIR: await tempDataDir() }), dbDataDir, 'SIGQUIT');
  } finally {
    await database.stop();
  }
});
