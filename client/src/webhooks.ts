// Webhook verification (Standard Webhooks): the signature, the timestamp tolerance, then the event,
// typed by its `type`. Several secrets may be given, for the days of a secret rotation.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components, operations } from './schema.d.ts';

export { WebhookVerificationError };

type Schemas = components['schemas'];
type PayoutStatusView = operations['getPayoutStatus']['responses'][200]['content']['application/json'];
type PayoutStatus = Schemas['Payout']['payoutStatus'];
type CancellationStatus = NonNullable<PayoutStatusView['payoutCancellationStatus']>;
type SettlementStatus = Schemas['Settlement']['settlementStatus'];

/** The type of an event: the `type` enum of the document's Event schema. */
export type EventType = Schemas['Event']['type'];

/** In every event's data: its id (the delivery's `webhook-id`) and its order among its resource's events. */
export interface EventMeta {
  eventId: string;
  /** 1, 2, 3 … per payout or settlement: keep the highest seen per resource and ignore older ones. */
  sequence: number;
}

// The document types `Event.data` as an open object (it has no `webhooks` section yet), so the data
// of each type is written here from the schemas it is built of (see the Event schema's description).
// When the document describes each event, take these from the generated types instead.
export interface PayoutEventData extends PayoutStatusView, EventMeta {
  payoutId: string;
  sourceMemberPayoutId: string;
}

export interface PayoutStatusChangedEvent {
  type: 'payout.status_changed';
  timestamp: string;
  data: PayoutEventData & { previousStatus: PayoutStatus | null };
}

export interface PayoutCancellationStatusChangedEvent {
  type: 'payout.cancellation_status_changed';
  timestamp: string;
  data: PayoutEventData & { previousStatus: CancellationStatus | null };
}

export interface PayoutReviewStatusChangedEvent {
  type: 'payout.review_status_changed';
  timestamp: string;
  data: EventMeta & {
    payoutId: string;
    sourceMemberPayoutId: string;
    payoutStatus: PayoutStatus;
    reviewStatus: 'OPEN' | 'RESOLVED';
    reviewReason: string;
    resolution?: string;
  };
}

export interface SettlementStatusChangedEvent {
  type: 'settlement.status_changed';
  timestamp: string;
  data: Schemas['Settlement'] & EventMeta & { previousStatus: SettlementStatus | null };
}

/** Our operators review a settlement whose step's outcome could not be established automatically; it keeps its status meanwhile. */
export interface SettlementReviewOpenedEvent {
  type: 'settlement.review_opened';
  timestamp: string;
  data: Schemas['SettlementReviewOpenedData'];
}

/** The review ended: MOVED (the settlement goes on) or NOT_MOVED (it fails and the funds are returned). */
export interface SettlementReviewResolvedEvent {
  type: 'settlement.review_resolved';
  timestamp: string;
  data: Schemas['SettlementReviewResolvedData'];
}

/** A webhook delivery's body, `{type, timestamp, data}`: narrow it with `switch (event.type)`. */
export type WebhookEvent =
  | PayoutStatusChangedEvent | PayoutCancellationStatusChangedEvent | PayoutReviewStatusChangedEvent | SettlementStatusChangedEvent
  | SettlementReviewOpenedEvent | SettlementReviewResolvedEvent;

// Fails to compile when the document's event types and the union above differ.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
export type EveryEventTypeTyped = Assert<Same<WebhookEvent['type'], EventType>>;

/** Node's IncomingHttpHeaders, a plain record, or fetch's Headers. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** How many secrets one verification tries at most (the current one and those being rotated out). */
export const WEBHOOK_SECRETS_MAX = 10;

/**
 * Checks a delivery with the endpoint's signing secret (`whsec_…`, from POST /v2/webhook-endpoints),
 * or with any of several during a rotation, and returns its typed event. `body` must be the raw
 * request body, exactly as received. Throws WebhookVerificationError for a missing or wrong
 * signature, a stale timestamp (over 5 minutes), or a body that is not an event.
 */
export function verifyWebhookEvent(body: string | Uint8Array, headers: WebhookHeaders, secrets: string | readonly string[]): WebhookEvent {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0 || list.length > WEBHOOK_SECRETS_MAX) {
    throw new RangeError(`verifyWebhookEvent: give 1 to ${WEBHOOK_SECRETS_MAX} secrets, not ${list.length}`);
  }
  const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const lowered = lowerCased(headers);
  let failure: unknown;
  for (const secret of list) {
    try {
      const verified = new Webhook(secret).verify(payload, lowered);
      if (!isEvent(verified)) throw new WebhookVerificationError('The payload is not an event');
      // Signed by the service, so shaped as it documents. A type added later than this client arrives
      // too, as an event whose `type` none of the union's cases names: keep a `default` branch.
      return { type: verified.type, timestamp: verified.timestamp, data: verified.data } as unknown as WebhookEvent;
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

/**
 * @deprecated Use `verifyWebhookEvent(body, headers, secrets)` or `client.webhooks.verify`; this
 * older order of arguments goes in 1.0.
 */
export function verifyWebhook(secret: string, body: string | Uint8Array, headers: WebhookHeaders): WebhookEvent {
  return verifyWebhookEvent(body, headers, secret);
}

function lowerCased(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      out[name.toLowerCase()] = value;
    });
    return out;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function isEvent(value: unknown): value is { type: string; timestamp: string; data: Record<string, unknown> } {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v['type'] === 'string' && typeof v['timestamp'] === 'string' && typeof v['data'] === 'object' && v['data'] !== null;
}
