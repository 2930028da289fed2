// MODE=mock: the API with no database (CONTRACT section 9). Same routes, schemas, authentication
// flow and error bodies as the real service; answers are the OpenAPI document's examples. Starts
// in well under a second; keeps no state.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { buildApp } from '../app.ts';
import type { Config } from '../platform/config.ts';
import { createMockTokenService } from './tokens.ts';

/** Stands in for every service and the database: mock handlers never call them; a call is a bug. */
const ABSENT = new Proxy({}, {
  get(_target, property) {
    if (property === 'then') return undefined; // not a promise
    throw new Error(`mock mode has no ${String(property)}: a handler reached a real service`);
  },
}) as never;

export async function startMockServer(config: Config, log: Logger) {
  const key = randomBytes(32); // tokens live only as long as this process
  const app = await buildApp({
    mode: 'mock', db: ABSENT, keys: { tokenSigningKey: key, tokenSigningKeyPrevious: undefined, clientSecretKey: key },
    rateLimitPerMinute: config.rateLimitPerMinute, logger: log, trustProxy: config.trustProxy,
    authFailureLimits: { windowSeconds: config.authFailureWindowSeconds, perAddressMax: config.authFailuresPerAddressMax, perClientMax: config.authFailuresPerClientMax },
    providers: ABSENT, payouts: ABSENT, rates: ABSENT, settlements: ABSENT, events: ABSENT, webhookEndpoints: ABSENT,
    readiness: { notReadyReason: async () => undefined },
    mock: { tokens: createMockTokenService },
  });
  const url = await app.listen({ port: config.port, host: config.host });
  return { app, url, stop: () => app.close() };
}
