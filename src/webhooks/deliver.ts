// One delivery attempt, run as the graphile-worker job `webhooks.deliver` {deliveryId, attempt}.
// The job re-reads the delivery and does nothing if it has moved on (a duplicate run), signs the
// event with the endpoint's secret (Standard Webhooks, via the standardwebhooks package), posts it
// outside any transaction, then records the attempt and its consequence in one statement: done,
// the next attempt's job, or given up. An endpoint has at most `endpointConcurrencyMax` requests
// in flight in a process (endpoint-slots.ts); a job that finds a slow endpoint busy is put back a
// second or two later without counting an attempt, so a slow endpoint holds a few worker slots,
// never all of them.
import { Webhook } from 'standardwebhooks';
import type { Task } from 'graphile-worker';
import type { Clock } from '../platform/clock.ts';
import type { Queryable } from '../platform/database/pool.ts';
import { isUuid } from '../platform/ids.ts';
import * as repo from './repo.ts';
import { retryDelayMs } from './schedule.ts';
import type { SecretBox } from './secrets.ts';
import type { SendResult, Sender } from './sender.ts';
import { createEndpointSlots, type Slot } from './endpoint-slots.ts';
import { createBatcher } from '../platform/batcher.ts';

export type DeliveryOutcome = 'SUCCEEDED' | 'RETRY' | 'FAILED' | 'STALE' | 'ABANDONED' | 'DEFERRED';

export interface DeliveryDeps {
  db: Queryable;
  secrets: SecretBox;
  sender: Sender;
  clock: Clock;
  endpointConcurrencyMax: number;
}

const DEFER_MS = 1000;
const BATCH_SIZE_MAX = 100;
const BATCH_CONCURRENCY_MAX = 2;
const SIGNERS_CACHED_MAX = 1000;

export const GONE_REASON = 'the endpoint answered 410 Gone';
export const UNSEALABLE_REASON = 'the endpoint secret cannot be opened with this CLIENT_SECRET_KEY';

/** The body every receiver gets: `{type, timestamp, data}`, data carrying eventId and sequence. */
export function webhookBody(d: Pick<repo.DeliveryToSend, 'type' | 'timestamp' | 'data'>): string {
  return JSON.stringify({ type: d.type, timestamp: d.timestamp.toISOString(), data: d.data });
}

function judge(result: SendResult, attemptsMade: number, now: Date): Pick<repo.AttemptRecord, 'outcome' | 'nextAttemptAt' | 'disableEndpoint'> {
  if (result.status !== null && result.status >= 200 && result.status < 300) return { outcome: 'SUCCEEDED', nextAttemptAt: null, disableEndpoint: null };
  if (result.status === 410) return { outcome: 'FAILED', nextAttemptAt: null, disableEndpoint: GONE_REASON };
  const delayMs = retryDelayMs(attemptsMade);
  return delayMs === undefined
    ? { outcome: 'FAILED', nextAttemptAt: null, disableEndpoint: null }
    : { outcome: 'RETRY', nextAttemptAt: new Date(now.getTime() + delayMs), disableEndpoint: null };
}

export function createDelivery(deps: DeliveryDeps) {
  const slots = createEndpointSlots(deps.endpointConcurrencyMax);
  // many deliveries run at once: their reads and their records are each one statement per batch
  const loads = createBatcher<string, repo.DeliveryToSend | undefined>({
    run: async (ids) => {
      const found = await repo.findDeliveriesToSend(deps.db, ids);
      return ids.map((id) => found.get(id));
    },
    batchSizeMax: BATCH_SIZE_MAX,
    concurrencyMax: BATCH_CONCURRENCY_MAX,
  });
  const records = createBatcher<repo.AttemptRecord, boolean>({
    run: async (items) => {
      const recorded = await repo.recordAttempts(deps.db, items);
      return items.map((i) => recorded.has(i.deliveryId));
    },
    batchSizeMax: BATCH_SIZE_MAX,
    concurrencyMax: BATCH_CONCURRENCY_MAX,
  });
  const signers = new Map<string, Webhook>();

  function signer(sealed: string): Webhook {
    let webhook = signers.get(sealed);
    if (!webhook) {
      if (signers.size >= SIGNERS_CACHED_MAX) signers.clear();
      webhook = new Webhook(deps.secrets.open(sealed));
      signers.set(sealed, webhook);
    }
    return webhook;
  }

  /** Signs and sends; the slot is released whatever happens. */
  async function post(d: repo.DeliveryToSend, slot: Slot): Promise<{ result: SendResult; attemptedAt: Date }> {
    try {
      const attemptedAt = deps.clock.now();
      const body = webhookBody(d);
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'settlement-payout-service-webhooks/1',
        'webhook-id': d.eventId,
        'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
        'webhook-signature': signer(d.secretSealed).sign(d.eventId, attemptedAt, body),
      };
      return { result: await deps.sender.send(d.url, headers, body), attemptedAt };
    } finally {
      slot.release();
    }
  }

  async function deliver(deliveryId: string, attemptsBefore: number): Promise<DeliveryOutcome> {
    const d = await loads.submit(deliveryId);
    if (!d || d.status !== 'PENDING' || d.attempts !== attemptsBefore) return 'STALE';
    if (d.endpointStatus !== 'ENABLED') {
      await repo.abandonDelivery(deps.db, deliveryId, attemptsBefore, `the endpoint is ${d.endpointStatus.toLowerCase()}`);
      return 'ABANDONED';
    }
    try {
      signer(d.secretSealed);
    } catch {
      // sealed under another CLIENT_SECRET_KEY: no attempt can be signed; an operator must act
      await repo.abandonDelivery(deps.db, deliveryId, attemptsBefore, UNSEALABLE_REASON);
      return 'ABANDONED';
    }
    const slot = await slots.acquire(d.webhookEndpointId);
    if (!slot) {
      await repo.deferDelivery(deps.db, deliveryId, attemptsBefore, new Date(deps.clock.now().getTime() + DEFER_MS * (1 + Math.random())));
      return 'DEFERRED';
    }
    const { result, attemptedAt } = await post(d, slot);
    const verdict = judge(result, attemptsBefore + 1, deps.clock.now());
    const recorded = await records.submit({
      deliveryId, attemptsBefore, attemptedAt, responseStatus: result.status, latencyMs: result.latencyMs,
      error: result.error ?? (result.status !== null && verdict.outcome !== 'SUCCEEDED' ? `answered ${result.status}` : null),
      ...verdict,
    });
    return recorded ? verdict.outcome : 'STALE';
  }

  const task: Task = async (payload) => {
    const { deliveryId, attempt } = (payload ?? {}) as { deliveryId?: unknown; attempt?: unknown };
    if (typeof deliveryId !== 'string' || !isUuid(deliveryId) || typeof attempt !== 'number') throw new Error('webhooks.deliver: malformed payload');
    await deliver(deliveryId, attempt);
  };

  return { deliver, task };
}

export type Delivery = ReturnType<typeof createDelivery>;
