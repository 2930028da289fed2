// The reference partner's HTTP side: the calls of the partner protocol (payouts: submit, status,
// cancel; settlements: notice and lookup, partner/settlements.ts), each verified against the
// service's public key, and a small control API for tests and demos that switches its behaviour
// for the next request, for one payout or for one settlement notice. A real partner keeps
// the protocol part and replaces the decisions with its own payment system.
import http from 'node:http';
import type { KeyObject } from 'node:crypto';
import { Compile } from 'typebox/compile';
import { PartnerPayoutBatch, PartnerPayoutRequest, type PartnerCancelAnswer, type PartnerPayoutState } from '../src/partners/protocol.ts';
import { verifyRequest } from '../src/partners/signatures.ts';
import type { Decision, NewReport, PayoutRow, Store } from './store.ts';
import { before, HANG, HttpAnswer, parseJson } from './answers.ts';
import { settlementCalls } from './settlements.ts';

export const BODY_BYTES_MAX = 64 * 1024;
// the request schemas, compiled once
const payoutSchema = Compile(PartnerPayoutRequest);
const batchSchema = Compile(PartnerPayoutBatch);
/** A batch submission's body may be larger: up to PAYOUT_BATCH_SIZE_MAX payouts. */
export const BATCH_BODY_BYTES_MAX = 2 * 1024 * 1024;

/** What the partner does with a payout; everything optional. */
export interface Behaviour {
  latencyMs?: number;
  /** BEFORE_RECEIVING: never answers and records nothing; AFTER_RECEIVING: records, then never answers. */
  hang?: 'BEFORE_RECEIVING' | 'AFTER_RECEIVING';
  /** Default: PAY (bank, wallet), PENDING until picked up (cash), REJECT for a beneficiary whose lastName is REJECT. */
  outcome?: 'PAY' | 'PENDING' | 'REJECT' | 'FAIL' | 'PAY_LATER' | 'PAY_THEN_RETURN';
  /** FAIL, PAY_LATER, PAY_THEN_RETURN: the report is sent this long after the submission (default 200). */
  reportAfterMs?: number;
  /** Answers this status (e.g. 503) without recording anything: a partner briefly unable to serve. */
  errorStatus?: number;
  /** How the payout's reports are sent: each twice, in reverse sequence order, or with a broken signature. */
  reports?: 'NORMAL' | 'DUPLICATE' | 'OUT_OF_ORDER' | 'BAD_SIGNATURE';
  /** Settlement notices: confirm the agreed amount (default), never confirm, or confirm one unit more. */
  settlementOutcome?: 'CONFIRM' | 'NEVER_CONFIRM' | 'CONFIRM_DIFFERENT_AMOUNT';
  /** The confirmation is sent this long after the notice (default 200). */
  confirmAfterMs?: number;
  /**
   * A payout's behaviour for its first request only (a timeout or an error that passes): later
   * requests about it (a status question, a resend) get the default behaviour.
   */
  once?: boolean;
}

export interface ServerDeps {
  store: Store;
  /** The service's public keys by key id. */
  serviceKeys: () => Promise<Map<string, KeyObject>>;
  log: (entry: object) => void;
}

function stateOf(row: PayoutRow): PartnerPayoutState {
  return {
    payoutId: row.payoutId,
    status: row.status,
    ...(row.reason !== null ? { reason: row.reason } : {}),
    ...(row.cashoutStatus !== null ? { cashoutStatus: row.cashoutStatus } : {}),
  };
}

function decide(request: PartnerPayoutRequest, behaviour: Behaviour): Decision {
  const now = Date.now();
  const later = now + (behaviour.reportAfterMs ?? 200);
  const flags = { duplicate: behaviour.reports === 'DUPLICATE', badSignature: behaviour.reports === 'BAD_SIGNATURE' };
  const outcome = behaviour.outcome ?? (request.beneficiary['lastName'] === 'REJECT' ? 'REJECT' : request.payoutMethod === 'CASH_PICKUP' ? 'PENDING' : 'PAY');
  const reports: NewReport[] = [];
  switch (outcome) {
    case 'PAY':
      return { status: 'PAID' as const, reports };
    case 'PENDING':
      return { status: 'PENDING' as const, ...(request.payoutMethod === 'CASH_PICKUP' ? { cashoutStatus: 'READY_FOR_PICKUP' } : {}), reports };
    case 'REJECT':
      return { status: 'REJECTED' as const, reason: 'Beneficiary account closed (reference partner)', reports };
    case 'FAIL':
      reports.push({ status: 'FAILED', dueAtMs: later, requires: 'PENDING', becomes: 'FAILED', rejectReason: 'Bank transfer bounced (reference partner)', ...flags });
      return { status: 'PENDING' as const, reports };
    case 'PAY_LATER':
      reports.push({ status: 'PAID', dueAtMs: later, requires: 'PENDING', becomes: 'PAID', ...flags });
      return { status: 'PENDING' as const, reports };
    case 'PAY_THEN_RETURN': {
      // paid now and confirmed in a report, then returned; OUT_OF_ORDER sends the return first
      const swap = behaviour.reports === 'OUT_OF_ORDER';
      reports.push({ status: 'PAID', dueAtMs: swap ? later + 50 : now, ...flags });
      reports.push({ status: 'RETURNED', dueAtMs: later, requires: 'PAID', becomes: 'RETURNED', rejectReason: 'Beneficiary bank returned the funds', ...flags });
      return { status: 'PAID' as const, reports };
    }
  }
}

function cancelAnswer(payoutId: string, before: PayoutRow | undefined, after: PayoutRow): PartnerCancelAnswer {
  if (after.status === 'CANCELLED') return { payoutId, outcome: 'CANCELLED' };
  if (after.status === 'PAID') return { payoutId, outcome: 'ALREADY_PAID', ...(after.cashoutStatus !== null ? { cashoutStatus: after.cashoutStatus } : {}) };
  if (after.status === 'PENDING') throw new Error(`payout ${payoutId} was ${before?.status} and is still PENDING after cancel`);
  return { payoutId, outcome: 'ALREADY_FINAL', status: after.status, ...(after.reason !== null ? { reason: after.reason } : {}) };
}

/**
 * What a batch call as a whole does when its payouts' behaviours differ: the longest latency, the
 * first error status, and a hang if any asks for one (before receiving wins over after).
 */
function callBehaviour(behaviours: Behaviour[]): Behaviour {
  const latencyMs = Math.max(0, ...behaviours.map((b) => b.latencyMs ?? 0));
  const errorStatus = behaviours.find((b) => b.errorStatus !== undefined)?.errorStatus;
  const hang = behaviours.some((b) => b.hang === 'BEFORE_RECEIVING') ? 'BEFORE_RECEIVING' : behaviours.find((b) => b.hang)?.hang;
  return { latencyMs, ...(errorStatus !== undefined ? { errorStatus } : {}), ...(hang ? { hang } : {}) };
}

async function readBody(request: http.IncomingMessage, bytesMax: number): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > bytesMax) throw new HttpAnswer(413, { code: 'PAYLOAD_TOO_LARGE' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function createPartnerServer(deps: ServerDeps) {
  const perPayout = new Map<string, Behaviour>();
  let next: Behaviour | undefined;
  /** false: the batch route is answered as unknown, as by a partner of protocol 1.1 (POST /control/batches). */
  let batches = true;
  /** The behaviour set for the next request, taken by this one. */
  const takeNext = (): Behaviour => {
    const once = next ?? {};
    next = undefined;
    return once;
  };
  /** A payout's behaviour: its own, under the one set for the next request (a batch takes that once for all its payouts). */
  const behaviourFor = (payoutId: string | undefined, once: Behaviour = takeNext()): Behaviour => {
    const own = payoutId === undefined ? undefined : perPayout.get(payoutId);
    if (own?.once) perPayout.delete(payoutId!);
    return { ...own, ...once };
  };

  const settlements = settlementCalls({ store: deps.store.settlements, behaviourFor });

  async function verified(request: http.IncomingMessage, body: string): Promise<void> {
    const keys = await deps.serviceKeys();
    const result = await verifyRequest({ method: request.method!, url: `http://${request.headers.host}${request.url}`, headers: request.headers, rawBody: body },
      async (keyId) => (keys.has(keyId) ? { publicKey: keys.get(keyId)! } : undefined));
    if (!result.ok) throw new HttpAnswer(401, { code: 'UNAUTHORIZED', detail: result.error });
  }

  /** Several payouts in one call: each is received as a single submission would be, all in one transaction. */
  async function submitBatch(body: string): Promise<HttpAnswer> {
    const batch = parseJson(body);
    if (!batchSchema.Check(batch)) throw new HttpAnswer(400, { code: 'VALIDATION_ERROR', detail: [...batchSchema.Errors(batch)][0]?.message });
    const ids = batch.payouts.map((p) => p.payoutId);
    const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
    if (repeated) throw new HttpAnswer(400, { code: 'VALIDATION_ERROR', detail: `payouts: payoutId ${repeated} appears twice` });
    const once = takeNext();
    const behaviours = new Map(batch.payouts.map((p) => [p.payoutId, behaviourFor(p.payoutId, once)]));
    const call = callBehaviour([...behaviours.values()]);
    const early = await before(call);
    if (early) return early;
    const rows = deps.store.receiveMany(batch.payouts, (payout) => decide(payout, behaviours.get(payout.payoutId)!));
    if (call.hang === 'AFTER_RECEIVING') return HANG();
    return new HttpAnswer(200, { payouts: rows.map(stateOf) });
  }

  async function protocol(method: string, path: string, request: http.IncomingMessage, body: string): Promise<HttpAnswer> {
    await verified(request, body);
    if (method === 'POST' && path === '/v1/payouts') {
      const payout = parseJson(body);
      if (!payoutSchema.Check(payout)) throw new HttpAnswer(400, { code: 'VALIDATION_ERROR', detail: [...payoutSchema.Errors(payout)][0]?.message });
      const behaviour = behaviourFor(payout.payoutId);
      const early = await before(behaviour);
      if (early) return early;
      const row = deps.store.receive(payout, () => decide(payout, behaviour));
      if (behaviour.hang === 'AFTER_RECEIVING') return HANG();
      return new HttpAnswer(200, stateOf(row));
    }
    if (method === 'POST' && path === '/v1/payout-batches') return batches ? submitBatch(body) : new HttpAnswer(404, { code: 'NOT_FOUND' });
    if (path.startsWith('/v1/settlements')) return settlements(method, path, body);
    const match = /^\/v1\/payouts\/([0-9a-fA-F-]{36})(\/cancel)?$/.exec(path);
    if (!match) return new HttpAnswer(404, { code: 'NOT_FOUND' });
    const payoutId = match[1]!;
    const behaviour = behaviourFor(payoutId);
    const early = await before(behaviour);
    if (early) return early;
    if (method === 'GET' && !match[2]) {
      const row = deps.store.find(payoutId);
      return row ? new HttpAnswer(200, stateOf(row)) : new HttpAnswer(404, { code: 'PAYOUT_NOT_FOUND', payoutId });
    }
    if (method === 'POST' && match[2]) {
      const { before, after } = deps.store.cancel(payoutId);
      if (behaviour.hang === 'AFTER_RECEIVING') return HANG();
      return new HttpAnswer(200, cancelAnswer(payoutId, before, after));
    }
    return new HttpAnswer(405, { code: 'METHOD_NOT_ALLOWED' });
  }

  /** Unsigned: for tests and demos on a private network only. */
  function control(method: string, path: string, body: string): HttpAnswer {
    if (method === 'GET' && path === '/control/books') return new HttpAnswer(200, deps.store.books());
    if (method === 'POST' && path === '/control/behaviour') {
      // one payout (payoutId) or one settlement notice (reference)
      const { payoutId, reference, behaviour } = parseJson(body) as { payoutId?: string; reference?: string; behaviour: Behaviour };
      const key = payoutId ?? reference;
      if (key === undefined) next = behaviour;
      else perPayout.set(key, behaviour);
      return new HttpAnswer(200, { payoutId: payoutId ?? null, reference: reference ?? null, behaviour });
    }
    if (method === 'POST' && path === '/control/batches') {
      batches = (parseJson(body) as { enabled?: unknown }).enabled !== false;
      return new HttpAnswer(200, { enabled: batches });
    }
    const pickup = /^\/control\/payouts\/([0-9a-fA-F-]{36})\/pickup$/.exec(path);
    if (method === 'POST' && pickup) {
      const behaviour = perPayout.get(pickup[1]!) ?? {};
      const row = deps.store.pickUp(pickup[1]!, { duplicate: behaviour.reports === 'DUPLICATE', badSignature: behaviour.reports === 'BAD_SIGNATURE' });
      return row ? new HttpAnswer(200, stateOf(row)) : new HttpAnswer(409, { code: 'INVALID_STATE', detail: 'only a PENDING payout is picked up' });
    }
    return new HttpAnswer(404, { code: 'NOT_FOUND' });
  }

  return http.createServer({ requestTimeout: 0 }, (request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    const method = request.method ?? 'GET';
    const answer = async () => {
      const body = await readBody(request, path === '/v1/payout-batches' ? BATCH_BODY_BYTES_MAX : BODY_BYTES_MAX);
      return path.startsWith('/control/') ? control(method, path, body) : protocol(method, path, request, body);
    };
    answer()
      .catch((error: unknown) => {
        if (error instanceof HttpAnswer) return error;
        deps.log({ msg: 'request failed', err: String(error) });
        return new HttpAnswer(500, { code: 'INTERNAL_ERROR' });
      })
      .then((result) => {
        deps.log({ msg: 'request', method, path, status: result.status });
        response.writeHead(result.status, { 'content-type': 'application/json' }).end(JSON.stringify(result.body));
      });
  });
}
