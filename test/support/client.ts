// Test support for the client package: a client for the demo member, and a fetch that records
// every request it sends (and can be told to misbehave).
import { createClient, type ClientOptions, type CreatePayoutBody, type FetchFn, type PayoutClient } from '../../client/src/index.ts';
import { DEMO } from './http.ts';
import { payoutBody } from './payouts.ts';

export interface Sent {
  method: string;
  path: string;
  authorization: string | null;
  idempotencyKey: string | null;
  status: number | null;
  /** The access token of a token answer. */
  accessToken?: string;
}

export interface RecordingFetch {
  fetch: FetchFn;
  sent: Sent[];
  /** How many of the sent requests went to this path (and method, when given). */
  count(path: string, method?: string): number;
  /** Replaces the next sending to `path`: the handler gets the request and the real fetch, and does what it likes. */
  interceptNext(path: string, handler: (request: Request, send: FetchFn) => Promise<Response>): void;
}

export function recordingFetch(): RecordingFetch {
  const intercepts: Array<{ path: string; handler: (request: Request, send: FetchFn) => Promise<Response> }> = [];
  const recorder: RecordingFetch = {
    sent: [],
    interceptNext: (path, handler) => {
      intercepts.push({ path, handler });
    },
    count: (path, method) => recorder.sent.filter((s) => s.path === path && (method === undefined || s.method === method)).length,
    fetch: async (request) => {
      const entry: Sent = {
        method: request.method,
        path: new URL(request.url).pathname,
        authorization: request.headers.get('authorization'),
        idempotencyKey: request.headers.get('idempotency-key'),
        status: null,
      };
      recorder.sent.push(entry);
      const send: FetchFn = async (r) => {
        const response = await fetch(r);
        entry.status = response.status;
        if (entry.path === '/oauth2/token' && response.ok) {
          entry.accessToken = ((await response.clone().json()) as { access_token: string }).access_token;
        }
        return response;
      };
      const index = intercepts.findIndex((i) => i.path === entry.path);
      if (index === -1) return send(request);
      const [intercept] = intercepts.splice(index, 1);
      return intercept!.handler(request, send);
    },
  };
  return recorder;
}

export function demoClient(baseUrl: string, options: Partial<ClientOptions> = {}): PayoutClient {
  return createClient({ baseUrl, clientId: DEMO.clientId, clientSecret: DEMO.secret, retry: { baseDelayMs: 10 }, ...options });
}

/** A valid MX_SPEI payout creation (a new sourceMemberPayoutId each time). */
export function newPayout(overrides: Record<string, unknown> = {}): CreatePayoutBody {
  return payoutBody('MX_SPEI', overrides) as unknown as CreatePayoutBody;
}

/** A request that reached the service, whose answer is then lost as if the connection dropped. */
export async function dropAfterSending(request: Request, send: FetchFn): Promise<Response> {
  const response = await send(request);
  await response.arrayBuffer();
  throw new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
