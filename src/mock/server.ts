// MODE=mock: the API with no database (CONTRACT section 9). Same routes, schemas, authentication
// flow and error bodies as the real service; creations run the sandbox's stateless rules
// (services.ts), every other answer is the OpenAPI document's example. Starts in well under a
// second; keeps no state.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { buildApp } from '../app.ts';
import type { Config } from '../platform/config.ts';
import { systemClock } from '../platform/clock.ts';
import { createMockServices } from './services.ts';
import { createMockTokenService } from './tokens.ts';

/** Stands in for a service (or the database) with only the given members: reaching any other is a bug. */
function only(present: object = {}): never {
  return new Proxy(present, {
    get(target, property) {
      if (property in target) return (target as Record<string | symbol, unknown>)[property];
      if (property === 'then') return undefined; // not a promise
      throw new Error(`mock mode has no ${String(property)}: a handler reached a real service`);
    },
  }) as never;
}
const ABSENT = only();

export async function startMockServer(config: Config, log: Logger) {
  const key = randomBytes(32); // tokens live only as long as this process
  const live = createMockServices({ payoutExpiryHours: config.payoutExpiryHours, rateLockMinutes: config.rateLockMinutes }, systemClock);
  const app = await buildApp({
    mode: 'mock', db: ABSENT, keys: { tokenSigningKey: key, tokenSigningKeyPrevious: undefined, clientSecretKey: key },
    rateLimitPerMinute: config.rateLimitPerMinute, logger: log, trustProxy: config.trustProxy,
    authFailureLimits: { windowSeconds: config.authFailureWindowSeconds, perAddressMax: config.authFailuresPerAddressMax, perClientMax: config.authFailuresPerClientMax },
    providers: live.providers, payouts: only(live.payouts), rates: only(live.rates), settlements: only(live.settlements), events: ABSENT, webhookEndpoints: ABSENT,
    readiness: { notReadyReason: async () => undefined },
    mock: { tokens: createMockTokenService },
  });
  const url = await app.listen({ port: config.port, host: config.host });
  return { app, url, stop: () => app.close() };
}
