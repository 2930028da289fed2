// Configuration from environment variables, validated once at boot. A bad value stops the
// process with a message that names the variable; nothing reads process.env after this.
import { Type, type Static } from 'typebox';
import { Ajv } from 'ajv';
import { StringEnum } from './schema.ts';
import path from 'node:path';

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
  DATABASE_POOL_MAX: Type.Integer({ minimum: 2, maximum: 200, default: 20 }),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  LOG_LEVEL: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  TOKEN_SIGNING_KEY: Type.Optional(Base64Key),
  TOKEN_SIGNING_KEY_PREVIOUS: Type.Optional(Base64Key),
  CLIENT_SECRET_KEY: Type.Optional(Base64Key),
  RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1200 }),
  WORKERS: Type.Integer({ minimum: 0, maximum: 64, default: 4 }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 600_000, default: 30_000 }),
  PAYOUT_EXPIRY_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 24 }),
  RATE_LOCK_MINUTES: Type.Integer({ minimum: 1, maximum: 1440, default: 15 }),
  PARTNER_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 }),
  PAYOUT_SUBMISSION_RECOVERY_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 30 }),
  WEBHOOK_WORKERS: Type.Integer({ minimum: 0, maximum: 256, default: 32 }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 30_000, default: 10_000 }),
  WEBHOOK_ENDPOINT_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 8 }),
  SANDBOX_RAIL_LATENCY_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 0 }),
  PARTNER_SIGNING_KEY_FILE: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  PARTNER_CONNECTIONS_REFRESH_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 5000 }),
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
  dataDir: string;
  logLevel: string;
  /** Keys as given; in sandbox mode missing ones are generated under dataDir (see platform/keys.ts). */
  tokenSigningKey: string | undefined;
  tokenSigningKeyPrevious: string | undefined;
  clientSecretKey: string | undefined;
  rateLimitPerMinute: number;
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
  /** Sandbox partners' simulated response time. */
  sandboxRailLatencyMs: number;
  /** PEM (PKCS#8) Ed25519 key the service signs partner calls with; unset: generated under dataDir. */
  partnerSigningKeyFile: string | undefined;
  /** How often each process re-reads the partner connections (base URL, enabled). */
  partnerConnectionsRefreshMs: number;
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
    dataDir: path.resolve(checked.DATA_DIR),
    logLevel: checked.LOG_LEVEL,
    tokenSigningKey: checked.TOKEN_SIGNING_KEY,
    tokenSigningKeyPrevious: checked.TOKEN_SIGNING_KEY_PREVIOUS,
    clientSecretKey: checked.CLIENT_SECRET_KEY,
    rateLimitPerMinute: checked.RATE_LIMIT_PER_MINUTE,
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
    webhookWorkers: checked.WEBHOOK_WORKERS,
    webhookTimeoutMs: checked.WEBHOOK_TIMEOUT_MS,
    webhookEndpointConcurrency: checked.WEBHOOK_ENDPOINT_CONCURRENCY,
  };
  checkProductionSecrets(config);
  return config;
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
