// Configuration from environment variables, validated once at boot. A bad value stops the
// process with a message that names the variable; nothing reads process.env after this.
import { Type, type Static } from 'typebox';
import { Ajv } from 'ajv';
import { StringEnum } from './schema.ts';
import { loadChainConfig, type ChainConfig } from '../chain/config.ts';
import path from 'node:path';
import { isIP } from 'node:net';

export const MODES = ['sandbox', 'production', 'mock'] as const;
export type Mode = (typeof MODES)[number];

const Base64Key = Type.String({
  minLength: 44,
  pattern: '^[A-Za-z0-9+/_-]+={0,2}$',
  description: 'at least 32 random bytes, base64 or base64url encoded',
});

const EnvSchema = Type.Object({
  MODE: StringEnum(MODES, { default: 'sandbox' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  MIGRATE_ON_START: Type.Optional(StringEnum(['true', 'false'])),
  DATABASE_POOL_MAX: Type.Integer({ minimum: 2, maximum: 200, default: 20 }),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  LOG_LEVEL: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  TOKEN_SIGNING_KEY: Type.Optional(Base64Key),
  TOKEN_SIGNING_KEY_PREVIOUS: Type.Optional(Base64Key),
  CLIENT_SECRET_KEY: Type.Optional(Base64Key),
  RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1200 }),
  RATE_LIMIT_SYNC_MS: Type.Integer({ minimum: 50, maximum: 10_000, default: 500 }),
  TRUST_PROXY: Type.String({ minLength: 1, maxLength: 2000, default: 'false' }),
  AUTH_FAILURE_WINDOW_SECONDS: Type.Integer({ minimum: 10, maximum: 86_400, default: 300 }),
  AUTH_FAILURES_PER_ADDRESS_MAX: Type.Integer({ minimum: 1, maximum: 100_000, default: 50 }),
  AUTH_FAILURES_PER_CLIENT_MAX: Type.Integer({ minimum: 1, maximum: 100_000, default: 20 }),
  WORKERS: Type.Integer({ minimum: 0, maximum: 64, default: 4 }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 600_000, default: 30_000 }),
  PAYOUT_EXPIRY_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 24 }),
  RATE_LOCK_MINUTES: Type.Integer({ minimum: 1, maximum: 1440, default: 15 }),
  PARTNER_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 }),
  PAYOUT_SUBMISSION_RECOVERY_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 30 }),
  WEBHOOK_WORKERS: Type.Integer({ minimum: 0, maximum: 256, default: 32 }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 30_000, default: 10_000 }),
  WEBHOOK_ENDPOINT_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 8 }),
  WEBHOOK_MEMBER_CONCURRENCY: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 })),
  WEBHOOK_CIRCUIT_FAILURES: Type.Integer({ minimum: 1, maximum: 100, default: 5 }),
  WEBHOOK_CIRCUIT_OPEN_MS: Type.Integer({ minimum: 1000, maximum: 3_600_000, default: 60_000 }),
  SANDBOX_RAIL_LATENCY_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 0 }),
  PARTNER_SIGNING_KEY_FILE: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  PARTNER_CONNECTIONS_REFRESH_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 5000 }),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 32, maxLength: 200, pattern: '^[\\x21-\\x7e]+$' })),
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 1000 })),
  OTEL_TRACES_EXPORTER: Type.Optional(StringEnum(['otlp', 'console', 'none'])),
  OTEL_SERVICE_NAME: Type.String({ minLength: 1, maxLength: 200, default: 'settlement-payout-service' }),
  RATE_FEED_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s?#]+$', maxLength: 1000 })),
  RATE_FEED_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 30_000, default: 2000 }),
  RATE_FEED_MAX_AGE_MS: Type.Integer({ minimum: 1000, maximum: 3_600_000, default: 60_000 }),
  RATE_FEED_SPREAD_BPS: Type.Integer({ minimum: 0, maximum: 1000, default: 0 }),
  RATE_FEED_INTERVAL_BUFFER_BPS: Type.Integer({ minimum: 0, maximum: 500, default: 5 }),
  RATE_FEED_CACHE_MS: Type.Integer({ minimum: 0, maximum: 10_000, default: 1000 }),
  TREASURY_PEGGED_CURRENCIES: Type.String({ pattern: '^[A-Z]{3}(,[A-Z]{3})*$', maxLength: 200, default: 'USD' }),
  SANDBOX_CLIENT_SECRET_1: Type.Optional(Type.String({ minLength: 8, maxLength: 200 })),
  SANDBOX_CLIENT_SECRET_2: Type.Optional(Type.String({ minLength: 8, maxLength: 200 })),
});
type Env = Static<typeof EnvSchema>;

export interface Config {
  mode: Mode;
  port: number;
  host: string;
  /** Set: use that PostgreSQL. Unset: start the embedded one under dataDir. */
  databaseUrl: string | undefined;
  databasePoolMax: number;
  /**
   * true: apply missing migrations at boot (needs DDL rights). false: only check that the schema
   * is at this release's version and refuse to start if not (`npm run migrate` is a separate step).
   */
  migrateOnStart: boolean;
  dataDir: string;
  logLevel: string;
  /** Keys as given; in sandbox mode missing ones are generated under dataDir (see platform/keys.ts). */
  tokenSigningKey: string | undefined;
  tokenSigningKeyPrevious: string | undefined;
  clientSecretKey: string | undefined;
  rateLimitPerMinute: number;
  /** How often each process sends its rate-limit counts and reads the others' (the limit's slack across processes). */
  rateLimitSyncMs: number;
  /**
   * Which peers' X-Forwarded-For is believed (Fastify's trustProxy): false, or the proxies'
   * addresses and CIDRs. It gives the source address of the failed-authentication limits.
   */
  trustProxy: TrustProxy;
  /** Failed authentication is counted per source address and per client id in windows this long. */
  authFailureWindowSeconds: number;
  authFailuresPerAddressMax: number;
  authFailuresPerClientMax: number;
  /** graphile-worker concurrency; 0 starts an API-only process. */
  workers: number;
  shutdownTimeoutMs: number;
  sandboxClientSecrets: [string | undefined, string | undefined];
  /** ACCP payouts not processed by then expire. */
  payoutExpiryHours: number;
  /** The longest the service waits for a partner within a request. */
  rateLockMinutes: number;
  partnerTimeoutMs: number;
  /** When a submission whose answer was never applied (crash, timeout) is sent again. */
  payoutSubmissionRecoverySeconds: number;
  /** Concurrent webhook deliveries per process (a worker pool of their own); 0: this process delivers none. */
  webhookWorkers: number;
  /** A receiver that has not answered by then has failed this attempt. */
  webhookTimeoutMs: number;
  /** Requests one endpoint may have in flight per process, so that a slow one cannot take every delivery worker. */
  webhookEndpointConcurrency: number;
  /**
   * Requests one member's endpoints may have in flight per process: its share of the delivery
   * workers (default a quarter of them), so that one member's slow endpoints leave the rest free.
   */
  webhookMemberConcurrency: number;
  /** Failed attempts in a row that open an endpoint's circuit. */
  webhookCircuitFailures: number;
  /** How long an open circuit puts the endpoint's deliveries back before a probe is sent. */
  webhookCircuitOpenMs: number;
  /** Sandbox partners' simulated response time. */
  sandboxRailLatencyMs: number;
  /** PEM (PKCS#8) Ed25519 key the service signs partner calls with; unset: generated under dataDir. */
  partnerSigningKeyFile: string | undefined;
  /** How often each process re-reads the partner connections (base URL, enabled). */
  partnerConnectionsRefreshMs: number;
  /** Bearer token a Prometheus scraper sends to GET /metrics; unset: /metrics is not served. */
  metricsToken: string | undefined;
  /** The price feed settlement rates are read from; unset: production quotes nothing, the sandbox simulates. */
  rateFeed: RateFeedConfig | undefined;
  /** Traces: off (undefined) unless OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER is set. */
  tracing: TracingConfig | undefined;
  /** The EVM chain settlements' stablecoin moves on (CHAIN_*); unset: the sandbox simulates it and production moves nothing. */
  chain: ChainConfig | undefined;
  /** Source currencies the treasury sells its stablecoin for one for one (production settlements). */
  treasuryPeggedCurrencies: string[];
}

export interface RateFeedConfig {
  url: string;
  /** The longest one feed call may take; past it the lock is refused (503). */
  timeoutMs: number;
  /** A quote whose asOf is older than this is stale: the lock is refused (503). */
  maxAgeMs: number;
  /** Taken off the feed's mid, lowering the rate a member gets. */
  spreadBps: number;
  /** Taken off once more for each hour ahead of execution (the forecast of every interval). */
  intervalBufferBps: number;
  /** How long one answer of the feed serves further locks on its pair. */
  cacheMs: number;
}

export interface TracingConfig {
  exporter: 'otlp' | 'console';
  /** The OTLP/HTTP collector's base URL (traces go to its /v1/traces); unset: the exporter's default. */
  endpoint: string | undefined;
  serviceName: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, strict: false });
const validateEnv = ajv.compile<Env>(EnvSchema);

/** Reads and checks the environment. Throws ConfigError naming the first bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const names = Object.keys(EnvSchema.properties);
  const env: Record<string, unknown> = {};
  for (const name of names) {
    const value = source[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  if (!validateEnv(env)) {
    const error = validateEnv.errors?.[0];
    const name = error?.instancePath.replace(/^\//, '') || String(error?.params?.['missingProperty'] ?? 'environment');
    const given = source[name] === undefined ? '' : ` (got ${JSON.stringify(source[name])})`;
    const allowed = error?.params?.['allowedValues'] as unknown[] | undefined;
    const rule = allowed ? `must be one of ${allowed.join(', ')}` : (error?.message ?? 'is invalid');
    throw new ConfigError(`Invalid configuration: ${name} ${rule}${given}`);
  }
  const checked = env as Env;
  const config: Config = {
    mode: checked.MODE,
    port: checked.PORT,
    host: checked.HOST,
    databaseUrl: checked.DATABASE_URL,
    databasePoolMax: checked.DATABASE_POOL_MAX,
    // the embedded database and the sandbox migrate themselves, so that `npm start` just works;
    // production on its own PostgreSQL migrates as a separate, privileged step
    migrateOnStart: checked.MIGRATE_ON_START === undefined
      ? checked.DATABASE_URL === undefined || checked.MODE !== 'production'
      : checked.MIGRATE_ON_START === 'true',
    dataDir: path.resolve(checked.DATA_DIR),
    logLevel: checked.LOG_LEVEL,
    tokenSigningKey: checked.TOKEN_SIGNING_KEY,
    tokenSigningKeyPrevious: checked.TOKEN_SIGNING_KEY_PREVIOUS,
    clientSecretKey: checked.CLIENT_SECRET_KEY,
    rateLimitPerMinute: checked.RATE_LIMIT_PER_MINUTE,
    rateLimitSyncMs: checked.RATE_LIMIT_SYNC_MS,
    trustProxy: parseTrustProxy(checked.TRUST_PROXY),
    authFailureWindowSeconds: checked.AUTH_FAILURE_WINDOW_SECONDS,
    authFailuresPerAddressMax: checked.AUTH_FAILURES_PER_ADDRESS_MAX,
    authFailuresPerClientMax: checked.AUTH_FAILURES_PER_CLIENT_MAX,
    workers: checked.WORKERS,
    shutdownTimeoutMs: checked.SHUTDOWN_TIMEOUT_MS,
    sandboxClientSecrets: [checked.SANDBOX_CLIENT_SECRET_1, checked.SANDBOX_CLIENT_SECRET_2],
    payoutExpiryHours: checked.PAYOUT_EXPIRY_HOURS,
    rateLockMinutes: checked.RATE_LOCK_MINUTES,
    partnerTimeoutMs: checked.PARTNER_TIMEOUT_MS,
    payoutSubmissionRecoverySeconds: checked.PAYOUT_SUBMISSION_RECOVERY_SECONDS,
    sandboxRailLatencyMs: checked.SANDBOX_RAIL_LATENCY_MS,
    partnerSigningKeyFile: checked.PARTNER_SIGNING_KEY_FILE === undefined ? undefined : path.resolve(checked.PARTNER_SIGNING_KEY_FILE),
    partnerConnectionsRefreshMs: checked.PARTNER_CONNECTIONS_REFRESH_MS,
    metricsToken: checked.METRICS_TOKEN,
    tracing: tracingConfig(checked),
    chain: source['CHAIN_RPC_URL'] ? loadChainConfig(source) : undefined,
    treasuryPeggedCurrencies: checked.TREASURY_PEGGED_CURRENCIES.split(','),
    rateFeed: checked.RATE_FEED_URL === undefined ? undefined : {
      url: checked.RATE_FEED_URL,
      timeoutMs: checked.RATE_FEED_TIMEOUT_MS,
      maxAgeMs: checked.RATE_FEED_MAX_AGE_MS,
      spreadBps: checked.RATE_FEED_SPREAD_BPS,
      intervalBufferBps: checked.RATE_FEED_INTERVAL_BUFFER_BPS,
      cacheMs: checked.RATE_FEED_CACHE_MS,
    },
    webhookWorkers: checked.WEBHOOK_WORKERS,
    webhookTimeoutMs: checked.WEBHOOK_TIMEOUT_MS,
    webhookEndpointConcurrency: checked.WEBHOOK_ENDPOINT_CONCURRENCY,
    webhookMemberConcurrency: checked.WEBHOOK_MEMBER_CONCURRENCY ?? Math.max(1, Math.floor(checked.WEBHOOK_WORKERS / 4)),
    webhookCircuitFailures: checked.WEBHOOK_CIRCUIT_FAILURES,
    webhookCircuitOpenMs: checked.WEBHOOK_CIRCUIT_OPEN_MS,
  };
  if (config.webhookWorkers > 1 && config.webhookMemberConcurrency >= config.webhookWorkers) {
    throw new ConfigError(
      `Invalid configuration: WEBHOOK_MEMBER_CONCURRENCY must be less than WEBHOOK_WORKERS (got ${config.webhookMemberConcurrency} of ${config.webhookWorkers}), or one member could take every delivery worker`,
    );
  }
  checkProductionSecrets(config);
  checkTimings(config);
  return config;
}

/** For entry points: the configuration, or the message on stderr and exit 78 (EX_CONFIG). */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
}

/**
 * A recorded submission is taken as unanswered (and its partner asked about it) after
 * PAYOUT_SUBMISSION_RECOVERY_SECONDS: that must be well past the longest a partner call can
 * take, or a call still under way would be questioned, and resent, beside itself.
 */
function checkTimings(config: Config): void {
  if (config.payoutSubmissionRecoverySeconds * 1000 < 2 * config.partnerTimeoutMs) {
    throw new ConfigError(
      `Invalid configuration: PAYOUT_SUBMISSION_RECOVERY_SECONDS (${config.payoutSubmissionRecoverySeconds}) must be at least twice ` +
        `PARTNER_TIMEOUT_MS (${config.partnerTimeoutMs} ms)`,
    );
  }
}

function tracingConfig(env: Env): TracingConfig | undefined {
  const exporter = env.OTEL_TRACES_EXPORTER ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined ? 'none' : 'otlp');
  if (exporter === 'none') return undefined;
  return { exporter, endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME };
}

/** false: X-Forwarded-For is ignored; a list: believed from those proxies only. */
export type TrustProxy = false | string[];

// the names proxy-addr (Fastify's trustProxy) knows for address ranges
const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isProxyAddress(entry: string): boolean {
  if (TRUST_PROXY_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (family === 4 && isIP(prefix) === 4) return true; // a netmask, as 10.0.0.0/255.0.0.0
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: off (false, off, 0), or a comma-separated list of the proxies' addresses, CIDRs and
 * the names loopback, linklocal, uniquelocal. Refused: `true` (believe anyone's X-Forwarded-For:
 * any client could choose its own source address) and a hop count (Fastify 5 no longer honours
 * one, because it cannot tell a request that came through the proxy from one sent straight to us).
 */
export function parseTrustProxy(value: string): TrustProxy {
  const text = value.trim().toLowerCase();
  if (text === 'false' || text === 'off' || text === '0') return false;
  const refuse = (rule: string) => new ConfigError(`Invalid configuration: TRUST_PROXY ${rule} (got ${JSON.stringify(value)})`);
  if (text === 'true') {
    throw refuse('must not be true: that believes X-Forwarded-For from anyone; list the proxies\' addresses or CIDRs');
  }
  if (/^\d+$/.test(text)) {
    throw refuse('must not be a hop count: it cannot tell a request through the proxy from one sent directly; list the proxies\' addresses or CIDRs');
  }
  const entries = text.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !isProxyAddress(entry));
  if (bad !== undefined) {
    throw refuse(`must be false or a comma-separated list of IP addresses, CIDRs, loopback, linklocal, uniquelocal; "${bad}" is none of these`);
  }
  return entries;
}

/** Secrets that ship in this repository (README, examples) and so are never acceptable in production. */
export const PUBLISHED_SECRETS: readonly string[] = [
  'demo-secret-1',
  'demo-secret-2',
  'c2FuZGJveC1vbmx5LXRva2VuLXNpZ25pbmcta2V5LWRvLW5vdC11c2U=',
  'c2FuZGJveC1vbmx5LWNsaWVudC1zZWNyZXQta2V5LWRvLW5vdC11c2UhIQ==',
];

function checkProductionSecrets(config: Config): void {
  if (config.mode !== 'production') return;
  const required: Array<[string, string | undefined]> = [
    ['TOKEN_SIGNING_KEY', config.tokenSigningKey],
    ['CLIENT_SECRET_KEY', config.clientSecretKey],
  ];
  for (const [name, value] of required) {
    if (value === undefined) throw new ConfigError(`Invalid configuration: ${name} is required in production mode`);
    if (PUBLISHED_SECRETS.includes(value)) {
      throw new ConfigError(`Invalid configuration: ${name} is a published default secret; production mode refuses it`);
    }
  }
  if (config.tokenSigningKey === config.clientSecretKey) {
    throw new ConfigError('Invalid configuration: TOKEN_SIGNING_KEY and CLIENT_SECRET_KEY must differ');
  }
  config.sandboxClientSecrets.forEach((secret, index) => {
    if (secret !== undefined) {
      throw new ConfigError(`Invalid configuration: SANDBOX_CLIENT_SECRET_${index + 1} is a sandbox setting; production mode refuses it`);
    }
  });
}
