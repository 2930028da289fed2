// `npm run bench`: boots the real service (embedded PostgreSQL, LOG_LEVEL=info) and a bare
// Fastify hello-world (the ceiling), drives both with autocannon from this machine, prints
// requests/s, p50 and p99 with the ratio to the ceiling, and writes bench/results/latest.json.
// Later areas add their scenarios to SCENARIOS.
import autocannon from 'autocannon';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { privateKeyToAccount } from 'viem/accounts';
import { createChainClient } from '../src/chain/connect.ts';
import { deployTestStablecoin } from '../src/chain/deploy.ts';
import { DEV_KEYS, LOCAL_CHAIN_ID, startHardhat } from '../test/support/hardhat.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 10);
const WARMUP_S = 2;
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const START_TIMEOUT_MS = 60_000;
/** The issue's targets for the authenticated code list. */
const TARGET_RATIO_MIN = 0.6;
const TARGET_P99_MS_MAX = 20;

interface Running {
  child: ChildProcess;
  url: string;
}

/**
 * Starts a server with its log going to a file (not to a pipe read by this process, which also
 * runs the load generator), and waits for its "service started" line.
 */
async function start(script: string, env: Record<string, string>, logFile: string): Promise<Running> {
  const log = await fs.open(logFile, 'w');
  const child = spawn(NODE, [script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', log.fd, 'inherit'] });
  await log.close();
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`${script} exited with ${exited}; see ${logFile}`);
    const seen = await fs.readFile(logFile, 'utf8');
    const match = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"service started"|"msg":"service started","url":"(http:\/\/[^"]+)"/.exec(seen);
    if (match) return { child, url: (match[1] ?? match[2])! };
    await new Promise((resolve) => setTimeout(resolve, 20)); // fine enough to time mock mode's start
  }
  child.kill('SIGKILL');
  throw new Error(`${script} did not start; see ${logFile}`);
}

async function stop(running: Running): Promise<void> {
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGTERM');
  await exited;
}

type Request = { path: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string };

interface Scenario {
  name: string;
  target: 'ceiling' | 'service';
  request: (token: string) => Request;
  /** A sequence of requests per unit of work (autocannon's `requests`), when one request is not enough. */
  sequence?: (token: string) => autocannon.Request[];
  /** Requests per unit of work, to report units per second (payouts created and processed). */
  requestsPerUnit?: number;
  /** The scope of the token the scenario runs with (default payouts). */
  token?: 'payouts' | 'settlements';
}

let payoutCounter = 0;
/** A fresh MX_SPEI payout each time (10 MXN: the seeded prefund funds about 200,000 of them). */
function payoutJson(): string {
  payoutCounter++;
  return JSON.stringify({
    sourceMemberPayoutId: `bench-${process.pid}-${payoutCounter}`,
    payoutProviderId: 'MX_SPEI',
    destinationCcy: 'MXN',
    payoutAmt: 10,
    sender: { firstName: 'Bench', lastName: 'Sender', countryCode: 'US' },
    beneficiary: { firstName: 'Bench', lastName: 'Beneficiary', accountNumber: '032180000118359719' },
  });
}

const jsonHeaders = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

/** A batch of IMMEDIATE settlements created at once, and the time until the last is S600_COMPLETED. */
async function immediateBatch(url: string, token: string, count: number): Promise<{ created: number; seconds: number; completed: number }> {
  const started = Date.now();
  const createdAfter = new Date(started - 1).toISOString();
  let next = 0;
  let created = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const rate = (await (await fetch(`${url}/v2/settlement-rates?destinationMemberId=PARTNER_PH`, { headers: { authorization: `Bearer ${token}` } })).json()) as { rateId: string };
      const response = await fetch(`${url}/v2/settlements`, {
        method: 'POST', headers: settlementHeaders(token),
        body: JSON.stringify({ destinationMemberId: 'PARTNER_PH', settlementAmt: 50, rateId: rate.rateId, executionInterval: 'IMMEDIATE' }),
      });
      if (response.status === 201) created++;
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 20 }, worker));
  const deadline = started + IMMEDIATE_BATCH_LIMIT_S * 1000 * 3;
  let completed = 0;
  while (Date.now() < deadline) {
    const page = (await (await fetch(`${url}/v2/settlements?settlementStatus=S600_COMPLETED&destinationMemberId=PARTNER_PH&size=1&createdAfter=${encodeURIComponent(createdAfter)}`, {
      headers: { authorization: `Bearer ${token}` },
    })).json()) as { totalRecords: number };
    completed = page.totalRecords;
    if (completed >= created) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { created, completed, seconds: Math.round((Date.now() - started) / 100) / 10 };
}

const WEBHOOK_BATCH = 10_000;
const WEBHOOK_BATCH_LIMIT_S = 120;
const BASIC_2 = `Basic ${Buffer.from('demo-source-2:demo-secret-2').toString('base64')}`;

async function tokenFor(url: string, basic: string, scope: string): Promise<string> {
  const response = await fetch(`${url}/oauth2/token`, {
    method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&scope=${scope}`,
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * Webhook delivery rate: WEBHOOK_BATCH payouts are created while no process delivers (the bench's
 * service runs without delivery workers), so that each leaves one pending delivery to a receiver in
 * this process; then a second service process on the same database, with delivery workers only,
 * drains them. The rate is deliveries / (last received - first received).
 */
async function webhookBatch(service: Running, dataDir: string): Promise<{ delivered: number; seconds: number; perSecond: number }> {
  const times: number[] = [];
  const receiver = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      times.push(Date.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  let deliverer: Running | undefined;
  try {
    const member = await tokenFor(service.url, BASIC_2, 'member');
    const registered = await fetch(`${service.url}/v2/webhook-endpoints`, {
      method: 'POST', headers: jsonHeaders(member), body: JSON.stringify({ url: receiverUrl, eventTypes: ['payout.status_changed'] }),
    });
    if (registered.status !== 201) throw new Error(`endpoint registration failed: ${registered.status}`);
    const payouts = await tokenFor(service.url, BASIC_2, 'payouts');
    const created = await autocannon({
      url: `${service.url}/v2/payouts`, connections: CONNECTIONS, amount: WEBHOOK_BATCH,
      requests: [{ method: 'POST', path: '/v2/payouts', headers: jsonHeaders(payouts), setupRequest: (req) => ({ ...req, body: payoutJson() }) }],
    });
    if (created.non2xx > 0) throw new Error(`${created.non2xx} payout creations failed`);
    const { url: databaseUrl } = JSON.parse(await fs.readFile(path.join(dataDir, 'runtime.json'), 'utf8')) as { url: string };
    deliverer = await start('src/main.ts', {
      LOG_LEVEL: 'info', PORT: '0', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, WORKERS: '0',
    }, path.join(dataDir, 'deliverer.log'));
    const deadline = Date.now() + WEBHOOK_BATCH_LIMIT_S * 1000;
    while (times.length < WEBHOOK_BATCH && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    const seconds = times.length > 1 ? (times.at(-1)! - times[0]!) / 1000 : 0;
    return { delivered: times.length, seconds: Math.round(seconds * 10) / 10, perSecond: seconds > 0 ? Math.round(times.length / seconds) : 0 };
  } finally {
    if (deliverer) await stop(deliverer);
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

/** Mock mode (no database): time to its "service started" line, then two operations under load. */
async function mockFigures(dataDir: string): Promise<{ startMs: number; figures: Array<Omit<Figure, 'ratioToCeiling'>> }> {
  const started = performance.now();
  const mock = await start('src/main.ts', { LOG_LEVEL: 'info', PORT: '0', MODE: 'mock', RATE_LIMIT_PER_MINUTE: '1000000' }, path.join(dataDir, 'mock.log'));
  const startMs = Math.round(performance.now() - started);
  try {
    const token = await tokenFor(mock.url, BASIC, 'payouts');
    const scenarios: Scenario[] = [
      { name: 'mock GET /v2/payouts/{id}', target: 'service', request: (t) => ({ path: '/v2/payouts/0b8f8a4e-6f1d-4c1a-9d43-2a7c5e9b1f20', headers: { authorization: `Bearer ${t}` } }) },
      { name: 'mock POST /v2/payouts', target: 'service', request: (t) => ({ path: '/v2/payouts', method: 'POST', headers: jsonHeaders(t), body: payoutJson() }) },
    ];
    const figures = [];
    for (const scenario of scenarios) figures.push((await measure(mock.url, scenario, token)).figure);
    return { startMs, figures };
  } finally {
    await stop(mock);
  }
}

const run = promisify(execFile);

/** Runs the operator CLI against the data directory; answers its JSON. */
async function admin(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<unknown> {
  const { stdout } = await run(NODE, ['src/admin/cli.ts', ...args, '--json'], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, ...env } });
  return JSON.parse(stdout) as unknown;
}

/** The reference partner (npm run partner) with its books in the data directory; waits for its start line. */
async function startPartner(serviceUrl: string, dataDir: string): Promise<Running & { keyId: string; publicKey: string }> {
  const logFile = path.join(dataDir, 'partner.log');
  const log = await fs.open(logFile, 'w');
  const child = spawn(NODE, ['partner/main.ts', '--port', '0', '--service-url', serviceUrl, '--store', path.join(dataDir, 'partner.sqlite')], {
    cwd: ROOT, stdio: ['ignore', log.fd, 'inherit'],
  });
  await log.close();
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const line = (await fs.readFile(logFile, 'utf8')).split('\n').find((l) => l.includes('"partner started"'));
    if (line) return { child, ...(JSON.parse(line) as { url: string; keyId: string; publicKey: string }) };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`the reference partner did not start; see ${logFile}`);
}

/**
 * Create-then-process in production mode through the reference partner: the sandbox world is
 * seeded first (members, providers, prefund), the demo clients are replaced by a real one, then
 * the service runs in production with the partner connected over the signed HTTP rail.
 */
async function productionFigure(dataDir: string): Promise<Omit<Figure, 'ratioToCeiling'>> {
  const prodDir = path.join(dataDir, 'production');
  await fs.mkdir(prodDir);
  const base = { LOG_LEVEL: 'info', PORT: '0', DATA_DIR: prodDir, RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_WORKERS: '0' };
  const seeding = await start('src/main.ts', base, path.join(prodDir, 'seed.log'));
  const created = (await admin(prodDir, ['clients', 'create', '--member', 'DEMO_SOURCE_1', '--scopes', 'payouts'])) as { clientId: string; clientSecret: string };
  for (const clientId of ['demo-source-1', 'demo-source-2']) await admin(prodDir, ['clients', 'revoke', clientId]);
  await stop(seeding);
  const keys = JSON.parse(await fs.readFile(path.join(prodDir, 'keys.json'), 'utf8')) as { tokenSigningKey: string; clientSecretKey: string };
  const secrets = { TOKEN_SIGNING_KEY: keys.tokenSigningKey, CLIENT_SECRET_KEY: keys.clientSecretKey };
  const service = await start('src/main.ts', { ...base, ...secrets, MODE: 'production', PARTNER_CONNECTIONS_REFRESH_MS: '300' }, path.join(prodDir, 'service.log'));
  const partner = await startPartner(service.url, prodDir);
  try {
    await admin(prodDir, ['partners', 'add-key', '--member', 'PARTNER_MX', '--key-id', partner.keyId, `--public-key=${partner.publicKey}`, '--actor', 'bench'], secrets);
    await admin(prodDir, ['partners', 'connect', '--member', 'PARTNER_MX', '--base-url', partner.url, '--actor', 'bench'], secrets);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // read within PARTNER_CONNECTIONS_REFRESH_MS
    const basic = `Basic ${Buffer.from(`${created.clientId}:${created.clientSecret}`).toString('base64')}`;
    const token = await tokenFor(service.url, basic, 'payouts');
    const scenario = SCENARIOS.find((sc) => sc.name === 'create + process (payouts/s)')!;
    const { figure } = await measure(service.url, { ...scenario, name: 'create + process, production through the reference partner (payouts/s)' }, token);
    return figure;
  } finally {
    await Promise.all([stop(partner), stop(service)]);
  }
}

const IMMEDIATE_BATCH = Number(process.env['BENCH_SETTLEMENTS'] ?? 1000);
const IMMEDIATE_BATCH_LIMIT_S = 60;

/**
 * 1,000 IMMEDIATE settlements over a real chain: Hardhat's node (a block every second, several
 * transfers in each), the test stablecoin, and the sandbox service with CHAIN_* set, so every
 * settlement's stablecoin is a signed ERC-20 transfer from the treasury that must reach its
 * confirmations before the settlement goes on.
 */
async function chainBatch(dataDir: string): Promise<{ created: number; completed: number; seconds: number; transfers: number; blocks: number; perBlockMax: number }> {
  const chainDir = path.join(dataDir, 'chain');
  await fs.mkdir(chainDir);
  const node = await startHardhat();
  let service: Running | undefined;
  try {
    const client = createChainClient(node.url, 100);
    const treasury = privateKeyToAccount(DEV_KEYS.treasury).address;
    const token = await deployTestStablecoin(client, node.url, {
      deployerKey: DEV_KEYS.deployer, chainId: LOCAL_CHAIN_ID, symbol: 'USDC', decimals: 6, mint: [{ to: treasury, units: 10n ** 15n }],
    });
    await node.request('evm_setAutomine', [false]);
    await node.request('evm_setIntervalMining', [1000]);
    service = await start('src/main.ts', {
      LOG_LEVEL: 'info', PORT: '0', DATA_DIR: chainDir, RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_WORKERS: '0', WORKERS: '8',
      CHAIN_RPC_URL: node.url, CHAIN_ID: String(LOCAL_CHAIN_ID), CHAIN_TOKEN_ADDRESS: token.address, CHAIN_TREASURY_KEY: DEV_KEYS.treasury,
      CHAIN_CONFIRMATIONS: '2', CHAIN_POLL_MS: '1000',
    }, path.join(chainDir, 'service.log'));
    const batch = await immediateBatch(service.url, await tokenFor(service.url, BASIC, 'settlements'), IMMEDIATE_BATCH);
    const { url } = JSON.parse(await fs.readFile(path.join(chainDir, 'runtime.json'), 'utf8')) as { url: string };
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const { rows: [row] } = await db.query<{ transfers: number; blocks: number; perBlockMax: number }>(
        `SELECT count(*)::int AS transfers, count(DISTINCT block_number)::int AS blocks,
                coalesce(max(n), 0)::int AS "perBlockMax"
           FROM chain_transfers LEFT JOIN (SELECT block_number AS b, count(*) AS n FROM chain_transfers GROUP BY block_number) per ON per.b = block_number`);
      return { ...batch, ...row! };
    } finally {
      await db.end();
    }
  } finally {
    if (service) await stop(service);
    await node.stop();
  }
}

const BASIC = `Basic ${Buffer.from('demo-source-1:demo-secret-1').toString('base64')}`;

const settlementHeaders = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

/** Rate lock then settlement creation, one unit of work (the rate's id carried to the creation). */
const settlementSequence = (token: string): autocannon.Request[] => [
  {
    method: 'GET', path: '/v2/settlement-rates?destinationMemberId=PARTNER_MX', headers: { authorization: `Bearer ${token}` },
    onResponse: (_status, body, context) => {
      (context as Record<string, unknown>)['rateId'] = (JSON.parse(body) as { rateId: string }).rateId;
    },
  },
  {
    method: 'POST', path: '/v2/settlements', headers: settlementHeaders(token),
    setupRequest: (req, context) => ({
      ...req,
      body: JSON.stringify({ destinationMemberId: 'PARTNER_MX', settlementAmt: 100, rateId: (context as Record<string, unknown>)['rateId'], executionInterval: 'ONE_HOUR' }),
    }),
  },
];

const SCENARIOS: Scenario[] = [
  { name: 'hello-world (ceiling)', target: 'ceiling', request: () => ({ path: '/' }) },
  { name: 'GET /v2/purpose-codes', target: 'service', request: (token) => ({ path: '/v2/purpose-codes', headers: { authorization: `Bearer ${token}` } }) },
  {
    name: 'POST /oauth2/token',
    target: 'service',
    request: () => ({
      path: '/oauth2/token',
      method: 'POST',
      headers: { authorization: BASIC, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=payouts',
    }),
  },
  {
    name: 'POST /v2/payouts',
    target: 'service',
    request: () => ({ path: '/v2/payouts', method: 'POST' }),
    sequence: (token) => [{ method: 'POST', path: '/v2/payouts', headers: jsonHeaders(token), setupRequest: (req) => ({ ...req, body: payoutJson() }) }],
  },
  {
    name: 'create + process (payouts/s)',
    target: 'service',
    request: () => ({ path: '/v2/payouts', method: 'POST' }),
    requestsPerUnit: 2,
    sequence: (token) => [
      {
        method: 'POST', path: '/v2/payouts', headers: jsonHeaders(token),
        setupRequest: (req) => ({ ...req, body: payoutJson() }),
        onResponse: (_status, body, context) => {
          (context as Record<string, unknown>)['payoutId'] = (JSON.parse(body) as { payoutId: string }).payoutId;
        },
      },
      {
        method: 'POST', path: '/v2/payouts', headers: { authorization: `Bearer ${token}` },
        setupRequest: (req, context) => ({ ...req, path: `/v2/payouts/${String((context as Record<string, unknown>)['payoutId'])}/process` }),
      },
    ],
  },
  {
    // scheduled an hour on, so that the pipeline's work does not weigh on the creations measured here
    name: 'rate lock + settlement (settlements/s)',
    target: 'service',
    token: 'settlements',
    request: () => ({ path: '/v2/settlements', method: 'POST' }),
    requestsPerUnit: 2,
    sequence: settlementSequence,
  },
];

/**
 * CPU time the hypervisor gave to other guests while this one wanted it ("steal", Linux only), as a
 * share of the time that passed: a scenario measured under heavy steal measured the neighbours.
 */
async function cpuTimes(): Promise<{ total: number; steal: number } | undefined> {
  const line = (await fs.readFile('/proc/stat', 'utf8').catch(() => '')).split('\n')[0] ?? '';
  const ticks = line.split(/\s+/).slice(1).map(Number);
  if (!line.startsWith('cpu ') || ticks.length < 8) return undefined;
  return { total: ticks.reduce((a, b) => a + b, 0), steal: ticks[7]! };
}

function stealPercent(before: Awaited<ReturnType<typeof cpuTimes>>, after: Awaited<ReturnType<typeof cpuTimes>>): number | null {
  if (!before || !after || after.total === before.total) return null;
  return Math.round(((after.steal - before.steal) / (after.total - before.total)) * 100);
}

interface Figure {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  ratioToCeiling: number;
  /** The machine's CPU steal during the measurement, in percent (null where it cannot be read). */
  stealPercent?: number | null;
}

/** Warms up, then measures: the scenario's figure (units per second) and the unrounded rate. */
async function measure(url: string, scenario: Scenario, token: string): Promise<{ figure: Omit<Figure, 'ratioToCeiling'>; rps: number }> {
  await drive(url, scenario, token, WARMUP_S);
  const before = await cpuTimes();
  const result = await drive(url, scenario, token, DURATION_S);
  const steal = stealPercent(before, await cpuTimes());
  const rps = result.requests.average / (scenario.requestsPerUnit ?? 1);
  return {
    rps,
    figure: {
      name: scenario.name, requestsPerSecond: Math.round(rps), p50Ms: result.latency.p50, p99Ms: result.latency.p99,
      non2xx: result.non2xx, errors: result.errors, stealPercent: steal,
    },
  };
}

/** One printed line per figure; the ratio to the ceiling where there is one. */
function printFigure(f: Omit<Figure, 'ratioToCeiling'>, ratio?: number): void {
  process.stdout.write(
    `${f.name.padEnd(28)} ${String(f.requestsPerSecond).padStart(7)} req/s  p50 ${String(f.p50Ms).padStart(3)} ms  p99 ${String(f.p99Ms).padStart(3)} ms  ` +
      `${ratio === undefined ? '' : `${ratio.toFixed(2)}x ceiling  `}non2xx ${f.non2xx}` +
      `${f.stealPercent === null || f.stealPercent === undefined ? '' : `  steal ${f.stealPercent}%`}\n`,
  );
}

async function drive(url: string, scenario: Scenario, token: string, durationS: number) {
  const request = scenario.request(token);
  return autocannon({
    url: `${url}${request.path}`,
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { body: request.body }),
    ...(scenario.sequence ? { requests: scenario.sequence(token) } : {}),
    connections: CONNECTIONS,
    duration: durationS,
  });
}

async function main() {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-'));
  const env = { LOG_LEVEL: 'info', PORT: '0' };
  const ceiling = await start('bench/hello.ts', env, path.join(dataDir, 'hello.log'));
  // the limiter still runs on every request; its ceiling is raised so that it does not refuse the load
  // no webhook delivery here: the delivery scenario runs its deliverer as a process of its own
  const service = await start('src/main.ts', { ...env, DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_WORKERS: '0' }, path.join(dataDir, 'service.log'));
  try {
    const token = await tokenFor(service.url, BASIC, 'payouts');
    const settlementsToken = await tokenFor(service.url, BASIC, 'settlements');
    const figures: Figure[] = [];
    let ceilingRps = 0;
    for (const scenario of SCENARIOS) {
      const url = scenario.target === 'ceiling' ? ceiling.url : service.url;
      const scenarioToken = scenario.token === 'settlements' ? settlementsToken : token;
      const { figure, rps } = await measure(url, scenario, scenarioToken);
      if (scenario.target === 'ceiling') ceilingRps = rps;
      figures.push({ ...figure, ratioToCeiling: Math.round((rps / ceilingRps) * 1000) / 1000 });
      printFigure(figure, rps / ceilingRps);
    }
    const mock = await mockFigures(dataDir);
    figures.push(...mock.figures.map((f) => ({ ...f, ratioToCeiling: Math.round((f.requestsPerSecond / ceilingRps) * 1000) / 1000 })));
    process.stdout.write(`mock mode: started in ${mock.startMs} ms\n`);
    for (const f of mock.figures) {
      printFigure(f);
    }
    const batch = await immediateBatch(service.url, settlementsToken, IMMEDIATE_BATCH);
    process.stdout.write(`${IMMEDIATE_BATCH} immediate settlements: ${batch.created} created, ${batch.completed} completed in ${batch.seconds} s\n`);
    const chain = await chainBatch(dataDir);
    process.stdout.write(`${IMMEDIATE_BATCH} immediate settlements over a local chain: ${chain.completed} completed in ${chain.seconds} s, ${chain.transfers} transfers in ${chain.blocks} blocks (at most ${chain.perBlockMax} in one)\n`);
    const webhooks = await webhookBatch(service, dataDir);
    process.stdout.write(`${WEBHOOK_BATCH} webhook deliveries: ${webhooks.delivered} delivered in ${webhooks.seconds} s, ${webhooks.perSecond}/s\n`);
    const production = await productionFigure(dataDir);
    figures.push({ ...production, ratioToCeiling: Math.round((production.requestsPerSecond / ceilingRps) * 1000) / 1000 });
    printFigure(production, production.requestsPerSecond / ceilingRps);
    const figure = (name: string) => figures.find((f) => f.name === name)!;
    const codes = figure('GET /v2/purpose-codes');
    const create = figure('POST /v2/payouts');
    const both = figure('create + process (payouts/s)');
    const targets = {
      purposeCodes: { ratioMin: TARGET_RATIO_MIN, p99MsMax: TARGET_P99_MS_MAX, met: codes.ratioToCeiling >= TARGET_RATIO_MIN && codes.p99Ms < TARGET_P99_MS_MAX && codes.non2xx === 0 },
      payoutCreation: { perSecondMin: 1500, p99MsMax: 50, met: create.requestsPerSecond >= 1500 && create.p99Ms < 50 && create.non2xx === 0 },
      createThenProcess: { payoutsPerSecondMin: 700, met: both.requestsPerSecond >= 700 && both.non2xx === 0 },
      productionCreateThenProcess: {
        payoutsPerSecondMin: 1000, ceilingRps: Math.round(ceilingRps), met: production.requestsPerSecond >= 1000 && production.non2xx === 0,
      },
      settlementCreation: {
        settlementsPerSecondMin: 500,
        met: figure('rate lock + settlement (settlements/s)').requestsPerSecond >= 500 && figure('rate lock + settlement (settlements/s)').non2xx === 0,
      },
      immediateBatch: {
        settlements: IMMEDIATE_BATCH, secondsMax: IMMEDIATE_BATCH_LIMIT_S, ...batch,
        met: batch.created === IMMEDIATE_BATCH && batch.completed === IMMEDIATE_BATCH && batch.seconds <= IMMEDIATE_BATCH_LIMIT_S,
      },
      chainBatch: {
        settlements: IMMEDIATE_BATCH, secondsMax: IMMEDIATE_BATCH_LIMIT_S, ...chain,
        met: chain.created === IMMEDIATE_BATCH && chain.completed === IMMEDIATE_BATCH && chain.seconds <= IMMEDIATE_BATCH_LIMIT_S && chain.perBlockMax > 1,
      },
      mockStart: { msMax: 1000, startMs: mock.startMs, met: mock.startMs < 1000 },
      webhookDelivery: {
        deliveries: WEBHOOK_BATCH, perSecondMin: 1000, ...webhooks,
        met: webhooks.delivered === WEBHOOK_BATCH && webhooks.perSecond >= 1000,
      },
    };
    for (const [name, target] of Object.entries(targets)) process.stdout.write(`target ${name}: ${target.met ? 'met' : 'NOT met'}\n`);
    const report = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version },
      settings: { connections: CONNECTIONS, durationS: DURATION_S, warmupS: WARMUP_S, logLevel: 'info' },
      figures,
      targets,
    };
    await fs.mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
    await fs.writeFile(path.join(ROOT, 'bench/results/latest.json'), `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write('written to bench/results/latest.json\n');
  } finally {
    await Promise.all([stop(service), stop(ceiling)]);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

if (process.env['BENCH_ONLY'] === 'production') {
  // `BENCH_ONLY=production npm run bench`: the ceiling, then create-then-process through the reference partner alone
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-'));
  await fs.chmod(dataDir, 0o755);
  const ceiling = await start('bench/hello.ts', { LOG_LEVEL: 'info', PORT: '0' }, path.join(dataDir, 'hello.log'));
  const { rps: ceilingRps } = await measure(ceiling.url, SCENARIOS[0]!, '');
  await stop(ceiling);
  const production = await productionFigure(dataDir);
  printFigure(production, production.requestsPerSecond / ceilingRps);
  process.stdout.write(`ceiling ${Math.round(ceilingRps)} req/s; target productionCreateThenProcess (1,000 payouts/s): ${production.requestsPerSecond >= 1000 && production.non2xx === 0 ? 'met' : 'NOT met'}\n`);
  await fs.rm(dataDir, { recursive: true, force: true });
} else if (process.env['BENCH_ONLY'] === 'chain') {
  // `BENCH_ONLY=chain npm run bench`: the settlements over a local chain alone
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-'));
  await fs.chmod(dataDir, 0o755); // the embedded PostgreSQL's own user reaches its directory inside
  const chain = await chainBatch(dataDir);
  process.stdout.write(`${JSON.stringify(chain)}\n`);
  await fs.rm(dataDir, { recursive: true, force: true });
} else {
  await main();
}
