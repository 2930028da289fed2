// Webhook verification (Standard Webhooks): the signature, the timestamp tolerance, then the event.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './schema.d.ts';

export { WebhookVerificationError };

type Event = components['schemas']['Event'];
export type EventType = Event['type'];

/** The body of a webhook delivery; `data.eventId` is the delivery's `webhook-id`. */
export interface WebhookEvent {
  type: EventType;
  timestamp: string;
  data: Event['data'];
}

/** Node's IncomingHttpHeaders, a plain record, or fetch's Headers. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a delivery with the endpoint's signing secret (`whsec_…`, from POST /v2/webhook-endpoints)
 * and returns its event. `body` must be the raw request body, exactly as received. Throws
 * WebhookVerificationError for a missing or wrong signature, a stale timestamp, or a body that is
 * not an event.
 */
export function verifyWebhook(secret: string, body: string | Uint8Array, headers: WebhookHeaders): WebhookEvent {
  const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const verified = new Webhook(secret).verify(payload, lowerCased(headers));
  if (!isEvent(verified)) throw new WebhookVerificationError('The payload is not an event');
  return { type: verified.type, timestamp: verified.timestamp, data: verified.data };
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

function isEvent(value: unknown): value is WebhookEvent {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v['type'] === 'string' && typeof v['timestamp'] === 'string' && typeof v['data'] === 'object' && v['data'] !== null;
}
