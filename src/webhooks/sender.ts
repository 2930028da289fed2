// Sends one signed webhook request and reports what happened; never throws for the receiver's
// faults (refused, reset, slow, bad status), which are the delivery's business, not a bug.
//
// Each endpoint has a connection pool of its own (an undici Agent), so that endpoints on the same
// host and port (one member's slow endpoint beside another member's healthy one) never queue for
// each other's connections. The agents are bounded in number (the least recently used idle one is
// closed to make room) and closed once idle for AGENT_IDLE_MS.
import { Agent, request } from 'undici';
import { publicOnlyLookup, type UrlPolicyMode } from './url-policy.ts';

export interface SendResult {
  /** The answer's status, or null when none came (connection error, timeout). */
  status: number | null;
  error: string | null;
  latencyMs: number;
}

/** Where a delivery goes: the endpoint (whose connection pool is used) and its URL. */
export interface SendTarget {
  webhookEndpointId: string;
  url: string;
}

export interface Sender {
  send(target: SendTarget, headers: Record<string, string>, body: string): Promise<SendResult>;
  /** Endpoint connection pools open now. */
  agentsOpen(): number;
  close(): Promise<void>;
}

/** How much of an answer is read (and thrown away) before the connection is given up. */
const RESPONSE_BYTES_MAX = 64 * 1024;
/** Endpoint connection pools kept open at most: more than the delivery workers (256 at most), so an idle one can always be closed. */
export const AGENTS_MAX = 512;
/** An endpoint's pool unused this long is closed. */
export const AGENT_IDLE_MS = 60_000;

export interface SenderOptions {
  mode: UrlPolicyMode;
  timeoutMs: number;
  /** Open connections per endpoint. */
  connectionsPerEndpointMax: number;
  agentsMax?: number;
  agentIdleMs?: number;
}

interface PooledAgent {
  agent: Agent;
  inFlight: number;
  lastUsedMs: number;
}

export function createSender(options: SenderOptions): Sender {
  const agentsMax = options.agentsMax ?? AGENTS_MAX;
  const idleMs = options.agentIdleMs ?? AGENT_IDLE_MS;
  // insertion order is use order: a used agent is moved to the end
  const agents = new Map<string, PooledAgent>();

  const newAgent = () => new Agent({
    connections: options.connectionsPerEndpointMax,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    maxResponseSize: RESPONSE_BYTES_MAX,
    // the URL policy is checked on every connection, through the lookup
    connect: { timeout: options.timeoutMs, ...(options.mode === 'production' ? { lookup: publicOnlyLookup } : {}) },
  });

  function retire(key: string, pooled: PooledAgent): void {
    agents.delete(key);
    void pooled.agent.close().catch(() => undefined);
  }

  function agentFor(key: string): PooledAgent {
    const found = agents.get(key);
    if (found) {
      agents.delete(key);
      agents.set(key, found);
      return found;
    }
    if (agents.size >= agentsMax) {
      const idle = [...agents].find(([, p]) => p.inFlight === 0);
      if (idle) retire(idle[0], idle[1]);
    }
    const pooled = { agent: newAgent(), inFlight: 0, lastUsedMs: performance.now() };
    agents.set(key, pooled);
    return pooled;
  }

  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [key, pooled] of agents) if (pooled.inFlight === 0 && now - pooled.lastUsedMs > idleMs) retire(key, pooled);
  }, Math.max(1000, Math.floor(idleMs / 2)));
  sweep.unref();

  return {
    async send(target, headers, body) {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      const pooled = agentFor(target.webhookEndpointId);
      pooled.inFlight += 1;
      try {
        const answer = await request(target.url, {
          method: 'POST', headers, body, dispatcher: pooled.agent, signal: AbortSignal.timeout(options.timeoutMs),
        });
        await answer.body.dump({ limit: RESPONSE_BYTES_MAX }).catch(() => undefined);
        return { status: answer.statusCode, error: null, latencyMs: latency() };
      } catch (error) {
        return { status: null, error: describe(error, options.timeoutMs), latencyMs: latency() };
      } finally {
        pooled.inFlight -= 1;
        pooled.lastUsedMs = performance.now();
      }
    },
    agentsOpen: () => agents.size,
    close: async () => {
      clearInterval(sweep);
      const closing = [...agents.values()].map((p) => p.agent.close().catch(() => undefined));
      agents.clear();
      await Promise.all(closing);
    },
  };
}

function describe(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `no answer within ${timeoutMs} ms`;
  }
  const code = e.code ?? e.cause?.code;
  const message = (e.message ?? e.cause?.message ?? 'request failed').slice(0, 200);
  return code ? `${code}: ${message}` : message;
}
