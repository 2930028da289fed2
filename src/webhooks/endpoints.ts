// Webhook endpoints of a member (scope member): register, list, get, update, delete, send a test
// event, rotate the secret, disable and enable. A signing secret is generated here and shown once,
// in the answer to the registration or the rotation.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import type { Queryable } from '../platform/database/pool.ts';
import { EVENT_TYPES, type EventType } from '../events/repo.ts';
import * as repo from './repo.ts';
import { generateEndpointSecret, type SecretBox } from './secrets.ts';
import { checkEndpointUrl, type UrlPolicyMode } from './url-policy.ts';
import { ok, refuse, type Result } from '../platform/result.ts';
import type { EndpointRefusal } from './errors.ts';

/** A limit on everything: endpoints per member. */
export const ENDPOINTS_PER_MEMBER_MAX = 16;
/** Test events a member may ask for, per endpoint and minute. */
export const TEST_EVENTS_PER_MINUTE_MAX = 5;
/** How long a replaced secret goes on signing beside the new one, unless the rotation says otherwise. */
export const SECRET_OVERLAP_SECONDS_DEFAULT = 24 * 3600;
export const SECRET_OVERLAP_SECONDS_MAX = 7 * 24 * 3600;
export const MEMBER_DISABLED_REASON = 'disabled by the member';

export interface EndpointView {
  webhookEndpointId: string;
  url: string;
  eventTypes: EventType[];
  creationTime: string;
  status: 'ENABLED' | 'DISABLED';
  statusReason: string | null;
}

export type EndpointResult<T> = Result<T, EndpointRefusal>;

const UNKNOWN = refuse<EndpointRefusal>('UNKNOWN_ENDPOINT', 'webhookEndpointId');

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
      if (!checked.ok) return refuse('INVALID_URL', checked.detail);
      if ((await repo.listEndpoints(deps.db, memberId)).length >= ENDPOINTS_PER_MEMBER_MAX) {
        return refuse('TOO_MANY_ENDPOINTS', `webhookEndpoints: at most ${ENDPOINTS_PER_MEMBER_MAX} per member; delete one first`);
      }
      const secret = generateEndpointSecret();
      const row = {
        webhookEndpointId: randomUUID(), memberId, url: checked.url,
        eventTypes: input.eventTypes ?? [...EVENT_TYPES], secretSealed: deps.secrets.seal(secret), creationTime: deps.clock.now(),
      };
      await repo.insertEndpoint(deps.db, row);
      return ok({ endpoint: endpointView({ ...row, status: 'ENABLED', statusReason: null, statusTime: null, consecutiveFailures: 0, circuitOpenUntil: null, circuitProbeUntil: null }), secret });
    },

    async list(memberId: string): Promise<EndpointView[]> {
      return (await repo.listEndpoints(deps.db, memberId)).map(endpointView);
    },

    async get(memberId: string, webhookEndpointId: string): Promise<EndpointResult<EndpointView>> {
      const row = await repo.findEndpoint(deps.db, webhookEndpointId);
      if (!row || row.memberId !== memberId || row.status === 'DELETED') return UNKNOWN;
      return ok(endpointView(row));
    },

    /** A new URL (the creation's URL policy) and/or event types; pending deliveries go to the new URL. */
    async update(memberId: string, webhookEndpointId: string, patch: { url?: string; eventTypes?: EventType[] }): Promise<EndpointResult<EndpointView>> {
      let url: string | undefined;
      if (patch.url !== undefined) {
        const checked = await checkEndpointUrl(patch.url, deps.mode);
        if (!checked.ok) return refuse('INVALID_URL', checked.detail);
        url = checked.url;
      }
      const row = await repo.updateEndpoint(deps.db, memberId, webhookEndpointId, { ...(url !== undefined ? { url } : {}), ...(patch.eventTypes ? { eventTypes: patch.eventTypes } : {}) });
      return row ? ok(endpointView(row)) : UNKNOWN;
    },

    /** A signed webhook.test event to this endpoint only, through the normal delivery path; bounded per minute. */
    async sendTest(memberId: string, webhookEndpointId: string): Promise<EndpointResult<{ deliveryId: string; eventId: string }>> {
      const data = { webhookEndpointId, message: 'A test event you asked for; nothing else happened.' };
      const result = await repo.queueTestEvent(deps.db, memberId, webhookEndpointId, data, TEST_EVENTS_PER_MINUTE_MAX);
      switch (result.kind) {
        case 'QUEUED': return ok({ deliveryId: result.deliveryId, eventId: result.eventId });
        case 'UNKNOWN': return UNKNOWN;
        case 'NOT_ENABLED': return refuse('ENDPOINT_NOT_ENABLED', `status: ${result.status}; enable the endpoint first`);
        case 'LIMITED': return refuse(
          'TOO_MANY_TEST_EVENTS', `at most ${TEST_EVENTS_PER_MINUTE_MAX} test events a minute per endpoint`, result.retryAfterSeconds,
        );
      }
    },

    /** A new secret, shown once; the replaced one signs too for `expiresInSeconds` (default 24 h, 0: stops at once). */
    async rotateSecret(memberId: string, webhookEndpointId: string, expiresInSeconds = SECRET_OVERLAP_SECONDS_DEFAULT): Promise<EndpointResult<{ endpoint: EndpointView; secret: string; previousSecretExpiresAt: string | null }>> {
      if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 0 || expiresInSeconds > SECRET_OVERLAP_SECONDS_MAX) {
        throw new RangeError(`expiresInSeconds out of bounds: ${expiresInSeconds}`);
      }
      const secret = generateEndpointSecret();
      const rotated = await repo.rotateSecret(deps.db, memberId, webhookEndpointId, deps.secrets.seal(secret), expiresInSeconds);
      if (!rotated) return UNKNOWN;
      return ok({ endpoint: endpointView(rotated.row), secret, previousSecretExpiresAt: rotated.previousSecretExpiresAt?.toISOString() ?? null });
    },

    /**
     * Pauses (DISABLED) or resumes (ENABLED) an endpoint; deliveries that failed meanwhile are not
     * resent (an operator redelivers them). The member's transitions (repo.setMemberEndpointStatus):
     *
     *   from      event    to
     *   ENABLED   disable  DISABLED ('disabled by the member'; pending deliveries end on their next run)
     *   DISABLED  disable  DISABLED (no change, the reason kept: a 410's or the member's)
     *   DISABLED  enable   ENABLED  (reason cleared, circuit closed, as the operator's `webhooks enable`)
     *   ENABLED   enable   ENABLED  (no change, the circuit kept; closing it takes a disable, which ends the pending deliveries)
     *   DELETED   any      404
     */
    async setStatus(memberId: string, webhookEndpointId: string, to: 'ENABLED' | 'DISABLED'): Promise<EndpointResult<EndpointView>> {
      const row = await repo.setMemberEndpointStatus(deps.db, memberId, webhookEndpointId, to, to === 'DISABLED' ? MEMBER_DISABLED_REASON : null);
      return row && row.status !== 'DELETED' ? ok(endpointView(row)) : UNKNOWN;
    },

    /** Deleted endpoints get no new deliveries; their pending ones end without another attempt. */
    async remove(memberId: string, webhookEndpointId: string): Promise<EndpointResult<null>> {
      const moved = await repo.setEndpointStatus(deps.db, webhookEndpointId, 'DELETED', 'deleted by the member', memberId);
      return moved ? ok(null) : UNKNOWN;
    },
  };
}

export type EndpointsService = ReturnType<typeof createEndpointsService>;
