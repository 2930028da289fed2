// @settlement-payout/client: the typed client for the Cross-Border Settlement and Domestic Payout
// API. An openapi-fetch client (every path, typed) with methods per resource on top, OAuth 2.0
// client credentials, a time limit on every request, bounded retries of idempotent requests
// (Retry-After honoured), replays told from creations, page iterators and typed, verified webhooks.
import createOpenApiClient, { type Client } from 'openapi-fetch';
import { authMiddleware, createTokenSource, errorMiddleware, type FetchFn } from './auth.ts';
import {
  codesResource, eventsResource, membersResource, payoutsResource, providersResource, ratesResource, settlementsResource,
  webhookEndpointsResource, type Body, type CreateSettlementOptions,
} from './resources.ts';
import type { components, paths } from './schema.d.ts';
import { createTransport, DEFAULT_TIMEOUT_MS, type RetryOptions } from './transport.ts';
import { verifyWebhook, verifyWebhookEvent, type WebhookEvent, type WebhookHeaders } from './webhooks.ts';

export { ApiError, isNetworkError, RequestTimeoutError, type ApiErrorCode, type ErrorCode, type OAuthErrorCode } from './errors.ts';
export { REFRESH_MARGIN_MS, type FetchFn, type TokenResponse } from './auth.ts';
export { DEFAULT_TIMEOUT_MS, isIdempotent, type RetryOptions } from './transport.ts';
export {
  PAGE_SIZE_MAX, type Answer, type Body, type Creation, type CreateSettlementOptions, type PagedList, type PayoutCreation, type Query,
  type SettlementCreation,
} from './resources.ts';
export {
  verifyWebhook, verifyWebhookEvent, WEBHOOK_SECRETS_MAX, WebhookVerificationError, type EventMeta, type EventType,
  type PayoutCancellationStatusChangedEvent, type PayoutEventData, type PayoutReviewStatusChangedEvent, type PayoutStatusChangedEvent,
  type SettlementStatusChangedEvent, type WebhookEvent, type WebhookHeaders,
} from './webhooks.ts';
export type { components, operations, paths } from './schema.d.ts';

export type Api = Client<paths>;
export type Payout = components['schemas']['Payout'];
export type Settlement = components['schemas']['Settlement'];
export type SettlementRate = components['schemas']['SettlementRate'];
export type Event = components['schemas']['Event'];
export type CreatePayoutBody = Body<'createPayout'>;
export type CreatePayoutResponse = paths['/v2/payouts']['post']['responses'][201]['content']['application/json'];
export type CreateSettlementBody = Body<'createSettlement'>;
export type PayoutListQuery = NonNullable<paths['/v2/payouts']['get']['parameters']['query']>;
export type SettlementListQuery = NonNullable<paths['/v2/settlements']['get']['parameters']['query']>;
export type EventListQuery = NonNullable<paths['/v2/events']['get']['parameters']['query']>;

export const DEFAULT_SCOPE = 'payouts settlements member';

export interface ClientOptions {
  /** The service's root, e.g. https://sandbox.example.com (no trailing /v2). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for (default "payouts settlements member"). */
  scope?: string;
  /** The fetch to send every request with, the token requests included (default globalThis.fetch). */
  fetch?: FetchFn;
  /** Bounds of the retries of idempotent requests. */
  retry?: RetryOptions;
  /** The time limit of each attempt of a request, its answer's body included (default 30000 ms). */
  timeoutMs?: number;
  /** Milliseconds since the epoch, for the token's lifetime (default Date.now). */
  now?: () => number;
}

function resources(api: Api) {
  const payouts = payoutsResource(api);
  const settlements = settlementsResource(api);
  return {
    payouts,
    settlements,
    rates: ratesResource(api),
    members: membersResource(api),
    webhookEndpoints: webhookEndpointsResource(api),
    events: eventsResource(api),
    codes: codesResource(api),
    providers: providersResource(api),
    webhooks: {
      /**
       * Verifies a delivery (its raw body and its headers) with the endpoint's secret, or any of
       * several during a rotation, and returns the event typed by its `type`. Needs no credentials:
       * `verifyWebhookEvent` is the same without a client.
       */
      verify: (body: string | Uint8Array, headers: WebhookHeaders, secrets: string | readonly string[]): WebhookEvent =>
        verifyWebhookEvent(body, headers, secrets),
    },
    /** @deprecated Use `payouts.create`, which also says whether the answer is a replay. Goes in 1.0. */
    createPayout: async (body: CreatePayoutBody): Promise<CreatePayoutResponse> => (await payouts.create(body)).payout,
    /** @deprecated Use `settlements.create`, which also says whether the answer is a replay. Goes in 1.0. */
    createSettlement: async (body: CreateSettlementBody, options?: CreateSettlementOptions): Promise<Settlement> =>
      (await settlements.create(body, options)).settlement,
    /** @deprecated Use `webhooks.verify(body, headers, secrets)`. Goes in 1.0. */
    verifyWebhook,
  };
}

export type Resources = ReturnType<typeof resources>;
/** The openapi-fetch client (GET, POST, …, use, eject) and the resources. */
export type PayoutClient = Api & Resources;

export function createClient(options: ClientOptions): PayoutClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const send: FetchFn = options.fetch ?? ((request) => globalThis.fetch(request));
  const fetch = createTransport(send, { retry: options.retry ?? {}, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
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
  return Object.assign(api, resources(api));
}
