// Sends one signed webhook request and reports what happened; never throws for the receiver's
// faults (refused, reset, slow, bad status), which are the delivery's business, not a bug.
import { Agent, request } from 'undici';
import { publicOnlyLookup, type UrlPolicyMode } from './url-policy.ts';

export interface SendResult {
  /** The answer's status, or null when none came (connection error, timeout). */
  status: number | null;
  error: string | null;
  latencyMs: number;
}

export interface Sender {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
  close(): Promise<void>;
}

/** How much of an answer is read (and thrown away) before the connection is given up. */
const RESPONSE_BYTES_MAX = 64 * 1024;

export interface SenderOptions {
  mode: UrlPolicyMode;
  timeoutMs: number;
  /** Open connections per receiving origin. */
  connectionsPerOriginMax: number;
}

export function createSender(options: SenderOptions): Sender {
  const agent = new Agent({
    connections: options.connectionsPerOriginMax,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    maxResponseSize: RESPONSE_BYTES_MAX,
    connect: { timeout: options.timeoutMs, ...(options.mode === 'production' ? { lookup: publicOnlyLookup } : {}) },
  });
  return {
    async send(url, headers, body) {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      try {
        const answer = await request(url, {
          method: 'POST', headers, body, dispatcher: agent, signal: AbortSignal.timeout(options.timeoutMs),
        });
        await answer.body.dump({ limit: RESPONSE_BYTES_MAX }).catch(() => undefined);
        return { status: answer.statusCode, error: null, latencyMs: latency() };
      } catch (error) {
        return { status: null, error: describe(error, options.timeoutMs), latencyMs: latency() };
      }
    },
    close: () => agent.close(),
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
