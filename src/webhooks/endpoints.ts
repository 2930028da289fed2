// Webhook endpoints of a member (scope member): register, list, delete. The signing secret is
// generated here and shown once, in the answer to the registration.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import type { Queryable } from '../platform/database/pool.ts';
import { EVENT_TYPES, type EventType } from '../events/repo.ts';
import * as repo from './repo.ts';
import { generateEndpointSecret, type SecretBox } from './secrets.ts';
import { checkEndpointUrl, type UrlPolicyMode } from './url-policy.ts';

/** A limit on everything: endpoints per member. */
export const ENDPOINTS_PER_MEMBER_MAX = 16;

export interface EndpointView {
  webhookEndpointId: string;
  url: string;
  eventTypes: EventType[];
  creationTime: string;
  status: 'ENABLED' | 'DISABLED';
  statusReason: string | null;
}

export type EndpointError = 'INVALID_URL' | 'TOO_MANY_ENDPOINTS' | 'UNKNOWN_ENDPOINT';
export type EndpointResult<T> = { ok: true; value: T } | { ok: false; error: EndpointError; detail: string };

export const endpointView = (row: repo.EndpointRow): EndpointView => ({
  webhookEndpointId: row.webhookEndpointId,
  url: row.url,
  eventTypes: row.eventTypes,
  creationTime: row.creationTime.toISOString(),
  status: row.status === 'ENABLED' ? 'ENABLED' : 'DISABLED',
  statusReason: row.statusReason,
});

export interface EndpointsDeps {
  db: Queryable;
  secrets: SecretBox;
  clock: Clock;
  mode: UrlPolicyMode;
}

export function createEndpointsService(deps: EndpointsDeps) {
  return {
    async create(memberId: string, input: { url: string; eventTypes?: EventType[] }): Promise<EndpointResult<{ endpoint: EndpointView; secret: string }>> {
      const checked = await checkEndpointUrl(input.url, deps.mode);
      if (!checked.ok) return { ok: false, error: 'INVALID_URL', detail: checked.detail };
      if ((await repo.listEndpoints(deps.db, memberId)).length >= ENDPOINTS_PER_MEMBER_MAX) {
        return { ok: false, error: 'TOO_MANY_ENDPOINTS', detail: `webhookEndpoints: at most ${ENDPOINTS_PER_MEMBER_MAX} per member; delete one first` };
      }
      const secret = generateEndpointSecret();
      const row = {
        webhookEndpointId: randomUUID(), memberId, url: checked.url,
        eventTypes: input.eventTypes ?? [...EVENT_TYPES], secretSealed: deps.secrets.seal(secret), creationTime: deps.clock.now(),
      };
      await repo.insertEndpoint(deps.db, row);
      return { ok: true, value: { endpoint: endpointView({ ...row, status: 'ENABLED', statusReason: null, statusTime: null, consecutiveFailures: 0, circuitOpenUntil: null, circuitProbeUntil: null }), secret } };
    },

    async list(memberId: string): Promise<EndpointView[]> {
      return (await repo.listEndpoints(deps.db, memberId)).map(endpointView);
    },

    async get(memberId: string, webhookEndpointId: string): Promise<EndpointResult<EndpointView>> {
      const row = await repo.findEndpoint(deps.db, webhookEndpointId);
      if (!row || row.memberId !== memberId || row.status === 'DELETED') return { ok: false, error: 'UNKNOWN_ENDPOINT', detail: 'webhookEndpointId' };
      return { ok: true, value: endpointView(row) };
    },

    /** Deleted endpoints get no new deliveries; their pending ones end without another attempt. */
    async remove(memberId: string, webhookEndpointId: string): Promise<EndpointResult<null>> {
      const moved = await repo.setEndpointStatus(deps.db, webhookEndpointId, 'DELETED', 'deleted by the member', memberId);
      return moved ? { ok: true, value: null } : { ok: false, error: 'UNKNOWN_ENDPOINT', detail: 'webhookEndpointId' };
    },
  };
}

export type EndpointsService = ReturnType<typeof createEndpointsService>;
