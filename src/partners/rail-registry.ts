// The rails of production: one HTTP rail per enabled partner connection (destination member ->
// base URL), read from PostgreSQL at boot and re-read every refreshMs, so that every process
// agrees within that interval after an operator's change. A payout whose destination member has
// no enabled connection has no rail (requireRail refuses it; nothing is sent anywhere).
import type { FastifyBaseLogger } from 'fastify';
import type { Agent } from 'undici';
import type { Queryable } from '../platform/database/pool.ts';
import { createHttpRail, createRailAgent } from '../payouts/rails/http.ts';
import type { PayoutRail, RailRegistry } from '../payouts/rails/rail.ts';
import type { SigningKey } from './signatures.ts';
import * as repo from './repo.ts';

export interface PartnerRails extends RailRegistry {
  /** Re-reads the connections now. */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

export async function createPartnerRails(deps: { db: Queryable; signingKey: SigningKey; refreshMs: number; log: FastifyBaseLogger; agent?: Agent }): Promise<PartnerRails> {
  const agent = deps.agent ?? createRailAgent();
  let rails = new Map<string, { baseUrl: string; rail: PayoutRail }>();

  const refresh = async () => {
    const next = new Map<string, { baseUrl: string; rail: PayoutRail }>();
    for (const connection of await repo.listConnections(deps.db)) {
      if (!connection.enabled) continue;
      const known = rails.get(connection.destinationMemberId);
      next.set(connection.destinationMemberId, known?.baseUrl === connection.baseUrl
        ? known
        : { baseUrl: connection.baseUrl, rail: createHttpRail({ baseUrl: connection.baseUrl, signingKey: deps.signingKey, dispatcher: agent }) });
    }
    rails = next;
  };

  await refresh();
  const timer = setInterval(() => {
    refresh().catch((error: unknown) => deps.log.warn({ err: error }, 'partner connections not re-read; the last ones stay in use'));
  }, deps.refreshMs);
  timer.unref();

  return {
    railFor: (payout) => rails.get(payout.destinationMemberId)?.rail,
    refresh,
    async close() {
      clearInterval(timer);
      if (!deps.agent) await agent.close();
    },
  };
}
