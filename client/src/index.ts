// @settlement-payout/client: the typed openapi-fetch client for the Cross-Border Settlement and
// Domestic Payout API, with OAuth 2.0 client credentials, typed errors, safe retries of creations,
// page iterators and webhook verification.
import createOpenApiClient, { type Client } from 'openapi-fetch';
import { authMiddleware, createTokenSource, errorMiddleware, type FetchFn } from './auth.ts';
import { ApiError, isNetworkError } from './errors.ts';
import type { components, paths } from './schema.d.ts';
import { verifyWebhook } from './webhooks.ts';

export { ApiError, isNetworkError, type ApiErrorCode, type ErrorCode, type OAuthErrorCode } from './errors.ts';
export { REFRESH_MARGIN_MS, type FetchFn, type TokenResponse } from './auth.ts';
export { verifyWebhook, WebhookVerificationError, type EventType, type WebhookEvent, type WebhookHeaders } from './webhooks.ts';
export type { components, paths } from './schema.d.ts';

export type Api = Client<paths>;
export type Payout = components['schemas']['Payout'];
export type Settlement = components['schemas']['Settlement'];
export type SettlementRate = components['schemas']['SettlementRate'];
export type Event = components['schemas']['Event'];
export type CreatePayoutBody = paths['/v2/payouts']['post']['requestBody']['content']['application/json'];
export type CreatePayoutResponse = paths['/v2/payouts']['post']['responses'][201]['content']['application/json'];
export type CreateSettlementBody = paths['/v2/settlements']['post']['requestBody']['content']['application/json'];
export type PayoutListQuery = NonNullable<paths['/v2/payouts']['get']['parameters']['query']>;
export type SettlementListQuery = NonNullable<paths['/v2/settlements']['get']['parameters']['query']>;
export type EventListQuery = NonNullable<paths['/v2/events']['get']['parameters']['query']>;

export const DEFAULT_SCOPE = 'payouts settlements member';

export interface RetryOptions {
  /** Attempts in all, the first included (default 4). */
  attempts?: number;
  /** The wait before the first retry; it doubles after each (default 250 ms), plus up to as much again at random. */
  baseDelayMs?: number;
  /** The longest wait between two attempts (default 5000 ms). */
  maxDelayMs?: number;
}

export interface ClientOptions {
  /** The service's root, e.g. https://sandbox.example.com (no trailing /v2). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for (default "payouts settlements member"). */
  scope?: string;
  /** The fetch to send every request with, the token requests included (default globalThis.fetch). */
  fetch?: FetchFn;
  /** Retries of createPayout and createSettlement after a network error. */
  retry?: RetryOptions;
  /** Milliseconds since the epoch, for the token's lifetime (default Date.now). */
  now?: () => number;
}

export interface CreateSettlementOptions {
  /** Sent as `Idempotency-Key`, the same on every retry; a random UUID when left out. */
  idempotencyKey?: string;
}

export interface PayoutClient extends Api {
  /**
   * POST /v2/payouts. After a network error (no answer) the same body is sent again, a few times
   * with backoff: the service is idempotent on `sourceMemberPayoutId`, so a request that did get
   * through answers the original payout instead of creating a second.
   */
  createPayout(body: CreatePayoutBody): Promise<CreatePayoutResponse>;
  /**
   * POST /v2/settlements with an `Idempotency-Key` (the given one, or a new random UUID), retried
   * with the same key after a network error or a 409 REQUEST_IN_PROGRESS.
   */
  createSettlement(body: CreateSettlementBody, options?: CreateSettlementOptions): Promise<Settlement>;
  payouts: {
    /** Every payout that matches, page after page of GET /v2/payouts (from `page`, default 0). */
    iterate(query?: Partial<PayoutListQuery>): AsyncGenerator<Payout, void, undefined>;
  };
  settlements: {
    /** Every settlement that matches, page after page of GET /v2/settlements (from `page`, default 0). */
    iterate(query?: Partial<SettlementListQuery>): AsyncGenerator<Settlement, void, undefined>;
  };
  events: {
    /** Your events after `after` (from the oldest kept one when left out), oldest first, until a page comes back empty. */
    iterate(query?: Partial<EventListQuery>): AsyncGenerator<Event, void, undefined>;
  };
  /** The exported verifyWebhook (which needs no client), here too for convenience. */
  verifyWebhook: typeof verifyWebhook;
}

const PAGE_SIZE = 100;

export function createClient(options: ClientOptions): PayoutClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetch: FetchFn = options.fetch ?? ((request) => globalThis.fetch(request));
  const tokens = createTokenSource({
    baseUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scope: options.scope ?? DEFAULT_SCOPE,
    fetch,
    now: options.now ?? Date.now,
  });
  const api = createOpenApiClient<paths>({ baseUrl, fetch });
  // Answers pass through the middleware in reverse order: the 401 retry first, then the error check.
  api.use(errorMiddleware, authMiddleware(tokens));

  const retrying = <T>(call: () => Promise<T>, retryable: (error: unknown) => boolean) => withRetries(call, retryable, options.retry ?? {});

  const helpers = {
    createPayout(body: CreatePayoutBody): Promise<CreatePayoutResponse> {
      return retrying(async () => present((await api.POST('/v2/payouts', { body })).data, 'POST /v2/payouts'), isNetworkError);
    },

    createSettlement(body: CreateSettlementBody, settlementOptions: CreateSettlementOptions = {}): Promise<Settlement> {
      const idempotencyKey = settlementOptions.idempotencyKey ?? globalThis.crypto.randomUUID();
      return retrying(
        async () => present((await api.POST('/v2/settlements', { body, params: { header: { 'idempotency-key': idempotencyKey } } })).data, 'POST /v2/settlements'),
        (error) => isNetworkError(error) || (error instanceof ApiError && error.code === 'REQUEST_IN_PROGRESS'),
      );
    },

    payouts: {
      iterate: (query: Partial<PayoutListQuery> = {}) => pages(query.page, async (page) => {
        const { data } = await api.GET('/v2/payouts', { params: { query: { size: PAGE_SIZE, ...query, page } } });
        const list = present(data, 'GET /v2/payouts');
        return { items: list.payouts, totalPages: list.totalPages };
      }),
    },

    settlements: {
      iterate: (query: Partial<SettlementListQuery> = {}) => pages(query.page, async (page) => {
        const { data } = await api.GET('/v2/settlements', { params: { query: { size: PAGE_SIZE, ...query, page } } });
        const list = present(data, 'GET /v2/settlements');
        return { items: list.settlements, totalPages: list.totalPages };
      }),
    },

    events: {
      async *iterate(query: Partial<EventListQuery> = {}): AsyncGenerator<Event, void, undefined> {
        let after = query.after;
        for (;;) {
          const { data } = await api.GET('/v2/events', {
            params: { query: { limit: query.limit ?? PAGE_SIZE, ...(after === undefined ? {} : { after }) } },
          });
          const list = present(data, 'GET /v2/events');
          if (list.events.length === 0) return;
          yield* list.events;
          after = list.nextAfter ?? list.events[list.events.length - 1]?.eventId;
        }
      },
    },

    verifyWebhook,
  };

  return Object.assign(api, helpers);
}

/** Every item of a page-numbered list, from page `first` (default 0) until the last page or an empty one. */
async function* pages<T>(first: number | undefined, fetchPage: (page: number) => Promise<{ items: T[]; totalPages: number }>): AsyncGenerator<T, void, undefined> {
  for (let page = first ?? 0; ; page++) {
    const { items, totalPages } = await fetchPage(page);
    yield* items;
    if (items.length === 0 || page + 1 >= totalPages) return;
  }
}

/** The body of a 2xx answer (errors were thrown by the middleware already). */
function present<T>(data: T | undefined, operation: string): T {
  if (data === undefined) throw new Error(`${operation}: the answer had no body`);
  return data;
}

async function withRetries<T>(call: () => Promise<T>, retryable: (error: unknown) => boolean, retry: RetryOptions): Promise<T> {
  const attempts = Math.max(1, retry.attempts ?? 4);
  const baseDelayMs = retry.baseDelayMs ?? 250;
  const maxDelayMs = retry.maxDelayMs ?? 5000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= attempts || !retryable(error)) throw error;
      const delay = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay));
    }
  }
}
