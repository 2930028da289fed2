// Starts and stops the whole service: database (embedded or DATABASE_URL), migrations, keys,
// the sandbox seed, the HTTP server and the in-process workers.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { PUBLISHED_SECRETS, type Config } from './platform/config.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './platform/database/embedded.ts';
import { migrate, schemaMismatch, schemaState } from './platform/database/migrate.ts';
import { createPool, type Db } from './platform/database/pool.ts';
import { resolveKeys } from './platform/keys.ts';
import { enqueueJob, startWorkers, workerLogger, type Workers } from './platform/jobs.ts';
import { createClientsService } from './auth/clients.ts';
import { seedSandbox } from './sandbox/seed.ts';
import { buildTaskList, cronItems } from './tasks.ts';
import { EXPIRE_DUE_TASK, EXPIRY_SWEEP_JOB_KEY, RECOVER_SUBMISSIONS_TASK, RECOVERY_SWEEP_JOB_KEY } from './payouts/task-names.ts';
import type { Clock } from './platform/clock.ts';
import { createDatabaseClock, type DatabaseClock } from './platform/database/clock.ts';
import { createProvidersService } from './providers/service.ts';
import { createSandboxRails } from './payouts/rails/sandbox.ts';
import { NO_RAILS } from './payouts/rails/rail.ts';
import { createPayoutsService } from './payouts/service.ts';
import { createRatesService } from './settlements/rates.ts';
import { createSettlementsService } from './settlements/service.ts';
import { createPipeline } from './settlements/pipeline.ts';
import { createDirectory } from './members/directory.ts';
import { connectVenues, type ConnectedVenues } from './settlements/connect-venues.ts';
import { NO_RATE_SOURCE } from './settlements/rate-source.ts';
import { sandboxRateSource } from './settlements/sandbox-rates.ts';
import { createHttpRateSource } from './settlements/http-rate-source.ts';
import { createEventsService } from './events/service.ts';
import { createEndpointsService } from './webhooks/endpoints.ts';
import { createSecretBox } from './webhooks/secrets.ts';
import { createSender, type Sender } from './webhooks/sender.ts';
import { createDelivery } from './webhooks/deliver.ts';
import { DELIVER_TASK } from './webhooks/task-names.ts';
import { createSharedRateLimit, type SharedRateLimit } from './platform/rate-limit/store.ts';
import { createReadiness } from './health/readiness.ts';
import { startMockServer } from './mock/server.ts';
import { resolveServiceSigningKey } from './partners/service-key.ts';
import { createIntake } from './partners/intake.ts';
import { createSettlementIntake } from './partners/settlement-intake.ts';
import { createPartnerRails, type PartnerRails } from './partners/rail-registry.ts';
import { createMetrics } from './metrics/registry.ts';

export interface RunningService {
  app: FastifyInstance;
  db: Db;
  /** This process's job runners (undefined with WORKERS=0 or WEBHOOK_WORKERS=0); /readyz reports them. */
  workers: { jobs: Workers | undefined; webhooks: Workers | undefined };
  /** http://host:port of the listening server. */
  url: string;
  stop(): Promise<void>;
}

export class StartupError extends Error {
  override name = 'StartupError';
}

async function openDatabase(config: Config, log: Logger) {
  if (config.databaseUrl !== undefined) return { url: config.databaseUrl, embedded: undefined };
  const embedded = await startEmbeddedPostgres(config.dataDir, {
    info: (msg) => log.info(msg),
    warn: (msg) => log.warn(msg),
  });
  return { url: embedded.localUrl, embedded };
}

/** Migrates (MIGRATE_ON_START=true) or checks that someone has (false: no DDL rights needed). */
async function prepareSchema(db: Db, config: Config, log: Logger): Promise<void> {
  if (config.migrateOnStart) {
    const applied = await migrate(db, workerLogger(log));
    if (applied.length > 0) log.info({ applied }, 'database migrations applied');
    return;
  }
  const mismatch = schemaMismatch(await schemaState(db));
  if (mismatch !== undefined) throw new StartupError(`MIGRATE_ON_START=false and ${mismatch}`);
}

export async function startService(config: Config, log: Logger): Promise<RunningService> {
  if (config.mode === 'mock') {
    const mock = await startMockServer(config, log);
    return { app: mock.app, db: undefined as never, url: mock.url, stop: mock.stop, workers: { jobs: undefined, webhooks: undefined } };
  }
  let embedded: EmbeddedPostgres | undefined;
  let db: Db | undefined;
  let workers: Workers | undefined;
  let webhookWorkers: Workers | undefined;
  let sender: Sender | undefined;
  let partnerRails: PartnerRails | undefined;
  let settlementVenues: ConnectedVenues | undefined;
  let databaseClock: DatabaseClock | undefined;
  let app: FastifyInstance | undefined;
  let rateLimits: SharedRateLimit | undefined;
  let rateFeed: ReturnType<typeof createHttpRateSource> | undefined;
  let ready = false;
  const stop = async () => {
    ready = false;
    await app?.close(); // stops accepting, lets in-flight requests finish
    await rateLimits?.stop(); // sends the last counts
    await workers?.stop(); // lets running jobs finish
    await webhookWorkers?.stop();
    await sender?.close();
    await partnerRails?.close();
    await rateFeed?.close();
    await settlementVenues?.close();
    databaseClock?.stop();
    await db?.end();
    await embedded?.stop();
  };
  try {
    const database = await openDatabase(config, log);
    embedded = database.embedded;
    db = createPool({ url: database.url, max: config.databasePoolMax, applicationName: `service-${process.pid}` });
    await prepareSchema(db, config, log);
    const keys = await resolveKeys(config);
    const serviceKey = await resolveServiceSigningKey({ dataDir: config.dataDir, keyFile: config.partnerSigningKeyFile });
    if (config.mode === 'production') {
      const weak = await createClientsService({ db, clientSecretKey: keys.clientSecretKey }).withSecrets(PUBLISHED_SECRETS);
      if (weak.length > 0) {
        throw new StartupError(`production mode refuses clients with a published default secret: ${weak.join(', ')}; rotate or revoke them`);
      }
    } else {
      const { applied } = await seedSandbox({ db, clientSecretKey: keys.clientSecretKey, secretOverrides: config.sandboxClientSecrets });
      if (applied.includes('world')) log.info('sandbox world seeded (demo clients demo-source-1 and demo-source-2)');
      if (applied.length > 0) log.info({ steps: applied }, 'sandbox seed steps applied');
    }
    const pool = db;
    // times that matter (expiry, rate locks, idempotency windows, job run times) follow the database's
    // clock, so processes whose system clocks drift apart still agree
    databaseClock = await createDatabaseClock(pool, { onError: (error) => log.debug({ err: error }, 'database clock not read; the last offset is kept') });
    const clock: Clock = databaseClock;
    // every pool of the process, by name, for the metrics' connection gauges
    const pools: Record<string, Db> = { api: pool };
    // Production reaches partners over the partner protocol (one HTTP rail per enabled connection,
    // npm run admin -- partners connect); a destination member with none has no rail and is sent nothing.
    if (config.mode === 'production') {
      partnerRails = await createPartnerRails({ db: pool, signingKey: serviceKey, refreshMs: config.partnerConnectionsRefreshMs, log });
    }
    const rails = config.mode === 'sandbox' ? createSandboxRails({ db: pool, latencyMs: config.sandboxRailLatencyMs }) : (partnerRails ?? NO_RAILS);
    const providers = createProvidersService({ db: pool });
    // members and corridors, read through one short cache by payouts, rates and settlements
    const directory = createDirectory(pool, clock);
    // parked payouts and contradictions are logged at error level with an `alarm` field
    const alarm = log.child({ area: 'payouts' });
    const payouts = createPayoutsService({
      db: pool, providers, rails, clock, directory, alarm,
      settings: {
        expiryHours: config.payoutExpiryHours,
        partnerTimeoutMs: config.partnerTimeoutMs,
      },
    });
    // Rates come from the price feed when RATE_FEED_URL is set (in the sandbox too, to try one);
    // otherwise the sandbox simulates them and production quotes nothing (no rate is ever locked).
    if (config.rateFeed) {
      const { url, ...feed } = config.rateFeed;
      rateFeed = createHttpRateSource({ baseUrl: url, ...feed });
    }
    const rates = createRatesService({
      db: pool, clock, lockMinutes: config.rateLockMinutes, directory,
      source: rateFeed ?? (config.mode === 'sandbox' ? sandboxRateSource : NO_RATE_SOURCE),
    });
    // Settlement venues by mode and CHAIN_* (settlements/connect-venues.ts).
    // Parked settlements are logged at error level with an `alarm` field.
    const connected = await connectVenues({
      mode: config.mode === 'sandbox' ? 'sandbox' : 'production', db: pool, chain: config.chain, signingKey: serviceKey,
      treasuryPeggedCurrencies: config.treasuryPeggedCurrencies,
    });
    settlementVenues = connected;
    log.info({ venues: connected.description }, 'settlement venues');
    const settlementPipeline = createPipeline({ db: pool, clock, venues: connected.venues, alarm: log.child({ area: 'settlements' }) });
    const settlements = createSettlementsService({ db: pool, clock, pipeline: settlementPipeline, directory });
    const taskList = buildTaskList({
      settlementPipeline,
      db: pool, rails, clock, alarm, partnerTimeoutMs: config.partnerTimeoutMs, submissionRecoverySeconds: config.payoutSubmissionRecoverySeconds,
    });
    const scheduleSweeps = async () => {
      // after a crash or a database outage, submissions left unfinished are sent again as soon as they are due
      await enqueueJob(pool, RECOVER_SUBMISSIONS_TASK, {}, {
        jobKey: RECOVERY_SWEEP_JOB_KEY,
        runAt: new Date(clock.now().getTime() + config.payoutSubmissionRecoverySeconds * 1000),
      });
      // and payouts that expired while nothing ran expire now; the sweep then schedules itself
      await enqueueJob(pool, EXPIRE_DUE_TASK, {}, { jobKey: EXPIRY_SWEEP_JOB_KEY, runAt: clock.now() });
    };
    await scheduleSweeps();
    const secrets = createSecretBox(keys.clientSecretKey);
    const urlMode = config.mode === 'production' ? 'production' : 'sandbox';
    const webhookEndpoints = createEndpointsService({ db: pool, secrets, clock, mode: urlMode });
    const events = createEventsService({ db: pool });
    if (config.workers > 0) {
      // the runner gets its own connections, so that jobs and API requests never wait for each other's
      const workerPool = createPool({ url: database.url, max: config.workers + 2, applicationName: `worker-${process.pid}` });
      pools['worker'] = workerPool;
      workers = await startWorkers({ db: workerPool, taskList, cron: cronItems, concurrency: config.workers, log, onDatabaseBack: scheduleSweeps });
    }
    if (config.webhookWorkers > 0) {
      // deliveries have a worker pool of their own: receivers' response times never hold up payouts and settlements
      sender = createSender({ mode: urlMode, timeoutMs: config.webhookTimeoutMs, connectionsPerEndpointMax: config.webhookEndpointConcurrency });
      const webhookPool = createPool({ url: database.url, max: 12, applicationName: `webhooks-${process.pid}` });
      pools['webhooks'] = webhookPool;
      const delivery = createDelivery({
        db: webhookPool, secrets, sender, clock, timeoutMs: config.webhookTimeoutMs,
        endpointConcurrencyMax: config.webhookEndpointConcurrency, memberConcurrencyMax: config.webhookMemberConcurrency,
        circuit: { failuresMax: config.webhookCircuitFailures, openMs: config.webhookCircuitOpenMs },
      });
      webhookWorkers = await startWorkers({
        db: webhookPool, taskList: { [DELIVER_TASK]: delivery.task }, concurrency: config.webhookWorkers, log, sweepDeadWorkers: false,
        batching: { localQueueSize: config.webhookWorkers, completeBatchDelayMs: 5 },
      });
    }
    rateLimits = createSharedRateLimit({ db: pool, syncIntervalMs: config.rateLimitSyncMs, log });
    app = await buildApp({
      mode: config.mode,
      db: pool,
      keys,
      rateLimitPerMinute: config.rateLimitPerMinute,
      rateLimitStore: rateLimits,
      trustProxy: config.trustProxy,
      authFailureLimits: {
        windowSeconds: config.authFailureWindowSeconds,
        perAddressMax: config.authFailuresPerAddressMax,
        perClientMax: config.authFailuresPerClientMax,
      },
      logger: log,
      providers,
      payouts,
      rates,
      settlements,
      events,
      webhookEndpoints,
      partners: { intake: createIntake({ db: pool }), settlementIntake: createSettlementIntake({ db: pool }), serviceKey },
      metrics: { metrics: createMetrics({ db: pool, pools }), token: config.metricsToken },
      readiness: createReadiness({
        db: pool,
        started: () => ready,
        runners: () => ({ workers, webhookWorkers }),
      }),
    });
    const address = await app.listen({ port: config.port, host: config.host });
    ready = true;
    return { app, db: pool, url: address, stop, workers: { jobs: workers, webhooks: webhookWorkers } };
  } catch (error) {
    await stop().catch((stopError: unknown) => log.error({ err: stopError }, 'cleanup after a failed start failed'));
    throw error;
  }
}
