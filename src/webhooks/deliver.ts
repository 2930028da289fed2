// One delivery attempt, run as the graphile-worker job `webhooks.deliver` {deliveryId, attempt}.
// The job re-reads the delivery and does nothing if it has moved on (a duplicate run), signs the
// event with the endpoint's secret (Standard Webhooks, via the standardwebhooks package; during a
// rotation's overlap with the replaced secret too), posts it
// outside any transaction, then records the attempt and its consequence in one statement: done,
// the next attempt's job, or given up.
//
// Fair shares: in a process, a member's endpoints have at most `memberConcurrencyMax` requests in
// flight, and one endpoint at most `endpointConcurrencyMax` (slots.ts); an endpoint whose circuit
// is open sends nothing (circuit.ts). A delivery that may not go now is put back without counting
// an attempt, behind every member's fresh work (priority 1), so a member with slow or flooded
// endpoints holds its share of the workers, never all of them, and others' first attempts and
// retries are taken first. A delivery put back because its member or endpoint is slow backs off
// (twice as long each time, up to the receiver timeout); one that merely found them busy comes
// back within a second or two.
import { Webhook } from 'standardwebhooks';
import type { Task } from 'graphile-worker';
import type { Clock } from '../platform/clock.ts';
import type { Queryable } from '../platform/database/pool.ts';
import { isUuid } from '../platform/ids.ts';
import * as repo from './repo.ts';
import { retryDelayMs } from './schedule.ts';
import type { SecretBox } from './secrets.ts';
import type { SendResult, Sender } from './sender.ts';
import { createSlots, type Refusal, type Slot } from './slots.ts';
import { admission, type CircuitSettings } from './circuit.ts';
import { createBatcher } from '../platform/batcher.ts';

export type DeliveryOutcome = 'SUCCEEDED' | 'RETRY' | 'FAILED' | 'STALE' | 'ABANDONED' | 'DEFERRED';

export interface DeliveryDeps {
  db: Queryable;
  secrets: SecretBox;
  sender: Sender;
  clock: Clock;
  endpointConcurrencyMax: number;
  memberConcurrencyMax: number;
  /** The receiver timeout: the longest a slot can stay taken, so the longest a put-back delivery backs off. */
  timeoutMs: number;
  circuit: CircuitSettings;
}

const DEFER_MS = 1000;
/** Put-back deliveries of an open circuit come back spread over this much after it half-opens. */
const CIRCUIT_SPREAD_MS = 2000;
/** Times a put-back count goes on doubling the wait (2^10 s is past any timeout bound). */
const DEFERRALS_COUNTED_MAX = 10;
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

/** How long a delivery put back waits: a slow member or endpoint is backed off from, a busy one is not. */
export function deferDelayMs(refusal: Refusal, deferrals: number, timeoutMs: number, random: () => number = Math.random): number {
  const base = refusal === 'SLOW' ? Math.min(DEFER_MS * 2 ** Math.min(deferrals, DEFERRALS_COUNTED_MAX), Math.max(timeoutMs, DEFER_MS)) : DEFER_MS;
  return Math.round(base * (1 + random()));
}

export function createDelivery(deps: DeliveryDeps) {
  const endpointSlots = createSlots(deps.endpointConcurrencyMax);
  // a member's deliveries waiting for its slots are bounded too: in flight and waiting, it holds at most twice its share of the workers
  const memberSlots = createSlots(deps.memberConcurrencyMax, { waitersMax: deps.memberConcurrencyMax });
  // many deliveries run at once: their reads, records and put-backs are each one statement per batch
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
      const recorded = await repo.recordAttempts(deps.db, items, deps.circuit);
      return items.map((i) => recorded.has(i.deliveryId));
    },
    batchSizeMax: BATCH_SIZE_MAX,
    concurrencyMax: BATCH_CONCURRENCY_MAX,
  });
  const deferrals = createBatcher<repo.Deferral, void>({
    run: async (items) => {
      await repo.deferDeliveries(deps.db, items);
      return items.map(() => undefined);
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

  /**
   * `v1,<signature>` under the current secret and, while a rotation's overlap lasts, under the
   * secret it replaced: space-separated, newest first, as Standard Webhooks allows. A replaced
   * secret that cannot be opened is left out (the current one alone still signs).
   */
  function signatures(d: repo.DeliveryToSend, at: Date, body: string): string {
    const all = [signer(d.secretSealed).sign(d.eventId, at, body)];
    if (d.previousSecretSealed !== null) {
      try {
        all.push(signer(d.previousSecretSealed).sign(d.eventId, at, body));
      } catch {
        // sealed under another key: sign with the current secret only
      }
    }
    return all.join(' ');
  }

  /** Both slots (the endpoint's, then its member's), or why not; nothing is held on a refusal. */
  async function acquire(d: repo.DeliveryToSend): Promise<Slot[] | Refusal> {
    const endpoint = await endpointSlots.acquire(d.webhookEndpointId);
    if (typeof endpoint === 'string') return endpoint;
    const member = await memberSlots.acquire(d.memberId);
    if (typeof member === 'string') {
      endpoint.release();
      return member;
    }
    return [endpoint, member];
  }

  /** Signs and sends; the slots are released whatever happens. */
  async function post(d: repo.DeliveryToSend, slots: Slot[]): Promise<{ result: SendResult; attemptedAt: Date }> {
    try {
      const attemptedAt = deps.clock.now();
      const body = webhookBody(d);
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'settlement-payout-service-webhooks/1',
        'webhook-id': d.eventId,
        'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
        'webhook-signature': signatures(d, attemptedAt, body),
      };
      return { result: await deps.sender.send(d, headers, body), attemptedAt };
    } finally {
      for (const slot of slots) slot.release();
    }
  }

  /** Whether the circuit lets this delivery be sent now; when not, it has been put back. */
  async function admitted(d: repo.DeliveryToSend, deferred: number): Promise<boolean> {
    const now = deps.clock.now();
    const decision = admission(d, now);
    if (decision.kind === 'SEND') return true;
    const probeUntil = new Date(now.getTime() + deps.timeoutMs + DEFER_MS);
    if (decision.kind === 'CLAIM_PROBE' && (await repo.claimProbe(deps.db, d.webhookEndpointId, probeUntil))) return true;
    const untilMs = decision.kind === 'WAIT' ? decision.untilMs : probeUntil.getTime();
    const runAt = new Date(Math.max(untilMs, now.getTime()) + Math.round(Math.random() * CIRCUIT_SPREAD_MS));
    await deferrals.submit({ deliveryId: d.deliveryId, attemptsBefore: d.attempts, runAt, deferrals: deferred });
    return false;
  }

  async function deliver(deliveryId: string, attemptsBefore: number, deferred = 0): Promise<DeliveryOutcome> {
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
    if (!(await admitted(d, deferred))) return 'DEFERRED';
    const slots = await acquire(d);
    if (typeof slots === 'string') {
      const runAt = new Date(deps.clock.now().getTime() + deferDelayMs(slots, deferred, deps.timeoutMs));
      await deferrals.submit({ deliveryId, attemptsBefore, runAt, deferrals: Math.min(deferred + 1, DEFERRALS_COUNTED_MAX) });
      return 'DEFERRED';
    }
    const { result, attemptedAt } = await post(d, slots);
    const verdict = judge(result, attemptsBefore + 1, deps.clock.now());
    const recorded = await records.submit({
      deliveryId, attemptsBefore, attemptedAt, responseStatus: result.status, latencyMs: result.latencyMs,
      error: result.error ?? (result.status !== null && verdict.outcome !== 'SUCCEEDED' ? `answered ${result.status}` : null),
      ...verdict,
    });
    return recorded ? verdict.outcome : 'STALE';
  }

  const task: Task = async (payload) => {
    const { deliveryId, attempt, deferrals: deferred } = (payload ?? {}) as { deliveryId?: unknown; attempt?: unknown; deferrals?: unknown };
    if (typeof deliveryId !== 'string' || !isUuid(deliveryId) || typeof attempt !== 'number') throw new Error('webhooks.deliver: malformed payload');
    await deliver(deliveryId, attempt, typeof deferred === 'number' && Number.isInteger(deferred) && deferred >= 0 ? deferred : 0);
  };

  return { deliver, task };
}

export type Delivery = ReturnType<typeof createDelivery>;
