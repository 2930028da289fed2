// OAuth 2.0 client credentials: one cached access token per client, fetched from POST /oauth2/token
// with HTTP Basic, refreshed before it runs out and once more when the service answers 401.
import type { Middleware } from 'openapi-fetch';
import { ApiError } from './errors.ts';
import type { paths } from './schema.d.ts';

export type TokenResponse = paths['/oauth2/token']['post']['responses'][200]['content']['application/json'];
export type FetchFn = (input: Request) => Promise<Response>;

/** A token with less than this left is replaced before it is used. */
export const REFRESH_MARGIN_MS = 30_000;

export interface TokenSourceOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  scope: string;
  fetch: FetchFn;
  /** Milliseconds since the epoch; Date.now unless given (tests move it on). */
  now: () => number;
}

export interface TokenSource {
  /** A token with at least REFRESH_MARGIN_MS left, fetched when the cached one has less. */
  get(): Promise<string>;
  /** A new token, unless `stale` has already been replaced by another call. */
  refresh(stale?: string): Promise<string>;
}

interface Cached {
  accessToken: string;
  expiresAtMs: number;
}

export function createTokenSource(options: TokenSourceOptions): TokenSource {
  let cached: Cached | undefined;
  let pending: Promise<Cached> | undefined;

  const fetchToken = async (): Promise<Cached> => {
    const requestedAt = options.now();
    const response = await options.fetch(new Request(`${options.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: basic(options.clientId, options.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: options.scope }).toString(),
    }));
    if (!response.ok) throw await ApiError.fromResponse(response);
    const token = (await response.json()) as TokenResponse;
    // counted from before the request left, so that the cache never outlives the token
    return { accessToken: token.access_token, expiresAtMs: requestedAt + token.expires_in * 1000 };
  };

  // Concurrent callers share one token request.
  const fetchShared = (): Promise<Cached> => {
    pending ??= fetchToken().then(
      (fresh) => {
        cached = fresh;
        pending = undefined;
        return fresh;
      },
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    );
    return pending;
  };

  /** The cached token while it has at least REFRESH_MARGIN_MS left. */
  const usable = (): Cached | undefined => (cached && cached.expiresAtMs - options.now() >= REFRESH_MARGIN_MS ? cached : undefined);

  return {
    async get() {
      return (usable() ?? (await fetchShared())).accessToken;
    },
    async refresh(stale) {
      const current = usable();
      if (current && stale !== undefined && current.accessToken !== stale) return current.accessToken;
      cached = undefined;
      return (await fetchShared()).accessToken;
    },
  };
}

/**
 * Sets `Authorization: Bearer` on every request; on a 401 answer gets a new token and sends the
 * request once more (from a copy taken before the first attempt consumed its body).
 */
export function authMiddleware(tokens: TokenSource): Middleware {
  const copies = new WeakMap<Request, { copy: Request; token: string }>();
  return {
    async onRequest({ request }) {
      const token = await tokens.get();
      request.headers.set('authorization', `Bearer ${token}`);
      copies.set(request, { copy: request.clone(), token });
      return request;
    },
    async onResponse({ request, response, options }) {
      const sent = copies.get(request);
      copies.delete(request);
      if (response.status !== 401 || !sent) return undefined;
      const token = await tokens.refresh(sent.token);
      await response.body?.cancel().catch(() => undefined);
      sent.copy.headers.set('authorization', `Bearer ${token}`);
      return options.fetch(sent.copy);
    },
  };
}

/** Turns every non-2xx answer into a thrown ApiError. */
export const errorMiddleware: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await ApiError.fromResponse(response);
    return undefined;
  },
};

/** RFC 6749 section 2.3.1: each part form-urlencoded, then `Basic base64(id:secret)`. */
function basic(clientId: string, clientSecret: string): string {
  const form = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${btoa(`${form(clientId)}:${form(clientSecret)}`)}`;
}
