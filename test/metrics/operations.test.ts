// What an operator sees without SQL: /metrics (Prometheus text behind METRICS_TOKEN), access-log
// lines naming the client and member, and job completions kept out of the info log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadConfig } from '../../src/platform/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { workerLogger } from '../../src/platform/jobs.ts';
import { createPool } from '../../src/platform/database/pool.ts';
import { createMetrics } from '../../src/metrics/registry.ts';
import { tempDataDir } from '../support/service.ts';
import { DEMO, token } from '../support/http.ts';
import { eventually, payoutApi, payoutBody } from '../support/payouts.ts';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789abcdef';
const lines: Array<Record<string, unknown>> = [];
let service: RunningService;
let dataDir: string;

async function start(env: Record<string, string>): Promise<RunningService> {
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'info', WORKERS: '1', DATA_DIR: dataDir, ...env });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return startService(config, pino({ level: config.logLevel }, sink));
}

/** The value of one series in Prometheus text, or undefined when it is absent. */
function seriesValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const scrape = (headers: Record<string, string> = { authorization: `Bearer ${METRICS_TOKEN}` }) => fetch(`${service.url}/metrics`, { headers });

before(async () => {
  dataDir = await tempDataDir();
  service = await start({ METRICS_TOKEN });
});
after(async () => {
  await service.stop();
});

describe('metrics', () => {
  test('GET /metrics refuses a missing or wrong token with 401 UNAUTHORIZED', async () => {
    const missing = await scrape({});
    assert.equal(missing.status, 401);
    assert.equal(((await missing.json()) as Record<string, unknown>)['code'], 'UNAUTHORIZED');
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
    const wrong = await scrape({ authorization: `Bearer ${METRICS_TOKEN}x` });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
  });

  test('requests are counted by route pattern (never the raw URL), with latency and the operational gauges', async () => {
    const api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
    const created = await api.created(payoutBody('MX_SPEI'));
    assert.equal((await api.status(String(created['payoutId']))).status, 200);
    assert.equal((await api.status('00000000-0000-4000-8000-000000000000')).status, 404);
    const response = await scrape();
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    assert.equal(seriesValue(text, 'http_requests_total{method="POST",route="/v2/payouts",status_code="201"}'), 1);
    assert.equal(seriesValue(text, 'http_requests_total{method="GET",route="/v2/payouts/:payoutId/status",status_code="200"}'), 1);
    assert.equal(seriesValue(text, 'http_requests_total{method="GET",route="/v2/payouts/:payoutId/status",status_code="404"}'), 1);
    assert.ok(!text.includes(String(created['payoutId'])), 'a raw URL never becomes a label');
    assert.equal(seriesValue(text, 'http_request_duration_seconds_count{method="POST",route="/v2/payouts",status_code="201"}'), 1);
    assert.ok((seriesValue(text, 'payouts{status="ACCP"}') ?? 0) >= 1);
    assert.ok(seriesValue(text, 'db_pool_clients_total{pool="api"}')! >= 1);
    assert.notEqual(seriesValue(text, 'db_pool_clients_waiting{pool="worker"}'), undefined);
    assert.equal(seriesValue(text, 'payouts_in_doubt'), 0);
    assert.equal(seriesValue(text, 'payout_reviews_open'), 0);
    assert.equal(seriesValue(text, 'settlement_reviews_open'), 0);
    assert.ok(seriesValue(text, 'ledger_credits_committed_minor_units{currency="MXN",kind="PREFUND"}')! > 0);
    assert.match(text, /^job_queue_depth\{task="[^"]+"\} \d+$/m);
    assert.match(text, /^job_queue_oldest_due_age_seconds\{task="[^"]+"\} [\d.e+-]+$/m);
    assert.match(text, /^process_cpu_user_seconds_total /m);
  });

  test('the database figures are read at most once per cache period, not per scrape', async () => {
    const api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
    const first = seriesValue(await (await scrape()).text(), 'payouts{status="ACCP"}') ?? 0;
    await api.created(payoutBody('MX_SPEI'));
    const second = seriesValue(await (await scrape()).text(), 'payouts{status="ACCP"}') ?? 0;
    assert.equal(second, first, 'a scrape within the cache period reuses the last reading');
  });

  test('a scrape while the database is unreachable still answers, and counts the failed reading', async () => {
    const unreachable = createPool({ url: 'postgres://nobody@127.0.0.1:1/none', max: 1, applicationName: 'metrics-test' });
    try {
      const metrics = createMetrics({ db: unreachable, pools: { api: unreachable } });
      const text = await metrics.render();
      assert.equal(seriesValue(text, 'metrics_database_read_failures_total'), 1);
      assert.notEqual(seriesValue(text, 'db_pool_clients_total{pool="api"}'), undefined, 'the pool figures are still reported');
      assert.doesNotMatch(text, /^payouts\{/m, 'no database figure is made up');
    } finally {
      await unreachable.end();
    }
  });

  test('/metrics is not in the OpenAPI document', async () => {
    const document = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.equal(document.paths['/metrics'], undefined);
  });
});

describe('logs', () => {
  test('the access-log line names the client and the member', async () => {
    const api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
    await api.created(payoutBody('MX_SPEI'));
    const line = await eventually(
      async () => lines.find((entry) => entry['msg'] === 'request completed' && entry['path'] === '/v2/payouts' && entry['method'] === 'POST'),
      (entry) => entry !== undefined,
    );
    assert.equal(line!['clientId'], DEMO.clientId);
    assert.equal(line!['memberId'], DEMO.memberId);
  });

  test('a routine job completion is not logged at info', async () => {
    const api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
    const created = await api.created(payoutBody('MX_SPEI'));
    assert.equal((await api.process(String(created['payoutId']))).status, 200);
    await eventually(() => api.record(String(created['payoutId'])), (record) => record['payoutStatus'] !== 'ACCP');
    assert.deepEqual(lines.filter((entry) => String(entry['msg']).startsWith('Completed task')), []);
  });

  test("graphile-worker's completions go to debug; its failures stay at error", () => {
    const seen: Array<{ level: number; msg: string }> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        seen.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
        done();
      },
    });
    const logger = workerLogger(pino({ level: 'debug' }, sink)).scope({ label: 'job' });
    logger.info('Completed task 7 (payout.process, 3.20ms) with success');
    logger.info('Worker connected and looking for jobs...');
    logger.error('Failed task 8 (payout.process, 2.00ms) with error boom');
    assert.deepEqual(seen.map((entry) => [entry.level, entry.msg]), [
      [20, 'Completed task 7 (payout.process, 3.20ms) with success'],
      [30, 'Worker connected and looking for jobs...'],
      [50, 'Failed task 8 (payout.process, 2.00ms) with error boom'],
    ]);
  });
});

describe('without METRICS_TOKEN', () => {
  test('/metrics is not served', async () => {
    await service.stop();
    service = await start({});
    assert.equal((await scrape()).status, 404);
  });
});
