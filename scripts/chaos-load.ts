// The fault campaign's client traffic: payouts created, processed, cancelled and driven through the
// sandbox controls, and IMMEDIATE settlements, sent to the API processes only. Every answer is
// counted; a 5xx is allowed only as a 503 while the database is down (and shortly after), and a
// request whose connection a killed process dropped is counted apart.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceProcess } from './chaos-fleet.ts';

/** After the database is back, pools take a moment to reconnect: 503s then are still the outage's. */
const DATABASE_GRACE_MS = 10_000;
const REQUEST_TIMEOUT_MS = 15_000;
const BACKOFF_MS = 250;

export interface LoadCounts {
  sent: number;
  byStatus: Record<string, number>;
  /** Connections dropped or refused by a process being killed or restarted. */
  dropped: number;
  /** 503 while the database was stopped (or within the grace after it came back). */
  outage503: number;
  /** Any other 5xx: a failure of the campaign. */
  unexpected5xx: number;
  unexpectedSamples: string[];
}

export interface LoadDriver {
  counts: LoadCounts;
  /** Marks the database as down (from now) or up (grace starts now). */
  databaseDown(down: boolean): void;
  /** Runs `lanes` loops of mixed operations until the signal aborts. */
  run(lanes: number, signal: AbortSignal): Promise<void>;
  /** A request through any live API process, retried until it gets an answer (bounded). */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }>;
}

const MX_SPEI = { firstName: 'Maria', lastName: 'Lopez', accountNumber: '032180000118359719' };
const MX_CASH = { firstName: 'Maria', lastName: 'Lopez', idType: 'INE', idNumber: 'LOGM850101MDF', phone: '+525512345678' };

function payoutBody(cash: boolean): Record<string, unknown> {
  return {
    sourceMemberPayoutId: `chaos-${randomUUID()}`,
    payoutProviderId: cash ? 'MX_CASH' : 'MX_SPEI',
    destinationCcy: 'MXN',
    payoutAmt: 100 + Math.floor(Math.random() * 900),
    sender: { firstName: 'John', lastName: 'Smith', countryCode: 'US', dateOfBirth: '1980-05-17' },
    beneficiary: cash ? MX_CASH : MX_SPEI,
  };
}

export function loadDriver(processes: ServiceProcess[], accessToken: () => string): LoadDriver {
  const counts: LoadCounts = { sent: 0, byStatus: {}, dropped: 0, outage503: 0, unexpected5xx: 0, unexpectedSamples: [] };
  let downSince: number | undefined;
  let upAt = 0;
  const inOutage = () => downSince !== undefined || Date.now() - upAt < DATABASE_GRACE_MS;
  const apis = () => processes.filter((p) => p.api && p.running());

  /** One request to one random live API process; undefined when its connection was dropped. */
  async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const live = apis();
    const target = live[Math.floor(Math.random() * live.length)] ?? processes.find((p) => p.api)!;
    counts.sent++;
    const started = inOutage();
    try {
      const response = await fetch(`${target.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${accessToken()}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await response.text();
      counts.byStatus[response.status] = (counts.byStatus[response.status] ?? 0) + 1;
      if (response.status >= 500) {
        if (response.status === 503 && (started || inOutage())) counts.outage503++;
        else {
          counts.unexpected5xx++;
          if (counts.unexpectedSamples.length < 10) counts.unexpectedSamples.push(`${method} ${path} ${response.status} ${text.slice(0, 200)}`);
        }
      }
      // a client backs off on 503 (Retry-After) rather than hammering a service that is waiting for its database
      if (response.status === 503) await sleep(BACKOFF_MS);
      return { status: response.status, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown> };
    } catch {
      counts.dropped++;
      await sleep(BACKOFF_MS);
      return undefined;
    }
  }

  async function call(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const answer = await send(method, path, body, headers);
      if (answer !== undefined && answer.status !== 503) return answer;
    }
    throw new Error(`${method} ${path}: no answer after 50 attempts`);
  }

  async function payoutFlow(): Promise<void> {
    const cash = Math.random() < 0.2;
    const created = await send('POST', '/v2/payouts', payoutBody(cash));
    const id = created?.body['payoutId'];
    if (created?.status !== 201 || typeof id !== 'string') return;
    const roll = Math.random();
    if (roll < 0.15) {
      await send('POST', `/v2/payouts/${id}/cancel`, { cancellationReason: 'Customer request' });
      return;
    }
    await send('POST', `/v2/payouts/${id}/process`);
    if (cash) {
      const outcome = roll < 0.5 ? { payoutStatus: 'PRCD' } : roll < 0.7 ? { payoutStatus: 'RJCT', rejectReason: 'Beneficiary not found' } : undefined;
      if (outcome) await send('POST', `/v2/sandbox/payouts/${id}/simulate`, outcome);
      else await send('POST', `/v2/payouts/${id}/cancel`, { cancellationReason: 'Customer request' });
    } else if (roll > 0.9) {
      await send('POST', `/v2/sandbox/payouts/${id}/simulate`, { payoutStatus: 'RVSD' });
    }
    await send('GET', `/v2/payouts/${id}`);
  }

  async function settlementFlow(): Promise<void> {
    const rate = await send('GET', '/v2/settlement-rates?destinationMemberId=PARTNER_MX');
    if (rate?.status !== 200) return;
    const body = { destinationMemberId: 'PARTNER_MX', settlementAmt: 500, rateId: rate.body['rateId'], executionInterval: 'IMMEDIATE' };
    await send('POST', '/v2/settlements', body, { 'idempotency-key': randomUUID() });
  }

  return {
    counts,
    call,
    databaseDown(down) {
      if (down) downSince = Date.now();
      else {
        downSince = undefined;
        upAt = Date.now();
      }
    },
    async run(lanes, signal) {
      const lane = async () => {
        while (!signal.aborted) {
          if (Math.random() < 0.2) await settlementFlow();
          else await payoutFlow();
        }
      };
      await Promise.all(Array.from({ length: lanes }, lane));
    },
  };
}
