// The API's operations as methods grouped by resource (client.payouts.create, …), typed from the
// generated `operations`. Each is one openapi-fetch call; errors were thrown by the middleware.
import type { Client } from 'openapi-fetch';
import type { operations, paths } from './schema.d.ts';

type Operation = keyof operations;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<O extends Operation> = operations[O]['responses'];

/** The JSON body of an operation's 2xx answer. */
export type Answer<O extends Operation> = JsonOf<Responses<O>[Extract<keyof Responses<O>, 200 | 201 | 202>]>;
/** An operation's query parameters. */
export type Query<O extends Operation> = NonNullable<operations[O]['parameters']['query']>;
/** An operation's JSON request body. */
export type Body<O extends Operation> = JsonOf<NonNullable<operations[O]['requestBody']>>;

/** The answer to a creation, and whether it replays an earlier identical request's answer (`Idempotent-Replayed: true`). */
export interface Creation {
  /** True when nothing was created: the service answered an earlier identical creation again. */
  replayed: boolean;
  /** The answer's X-Request-Id. */
  requestId: string | null;
}

/**
 * A list call: a promise of its first page, and an async iterable over every item of every page
 * from there on (the first page is fetched once either way).
 */
export type PagedList<Page, Item> = Promise<Page> & AsyncIterable<Item>;

export const PAGE_SIZE_MAX = 100;
/** A walk stops after this many pages, a bound against a list that never ends. */
export const PAGES_MAX = 100_000;

export function pagedList<Page, Item>(first: Promise<Page>, itemsOf: (page: Page) => Item[], nextOf: (page: Page) => Promise<Page> | undefined): PagedList<Page, Item> {
  async function* walk(): AsyncGenerator<Item, void, undefined> {
    let page: Promise<Page> | undefined = first;
    for (let count = 0; page && count < PAGES_MAX; count++) {
      const current: Page = await page;
      yield* itemsOf(current);
      page = nextOf(current);
    }
  }
  return Object.assign(first, { [Symbol.asyncIterator]: walk });
}

/** The body of a 2xx answer (errors were thrown by the middleware already). */
export function present<T>(data: T | undefined, operation: string): T {
  if (data === undefined) throw new Error(`${operation}: the answer had no body`);
  return data;
}

/** What a creation's answer says about itself. */
export function creation(response: Response): Creation {
  return { replayed: response.headers.get('idempotent-replayed') === 'true', requestId: response.headers.get('x-request-id') };
}

type Api = Client<paths>;

/** Page-numbered lists (payouts, settlements): the next page until `totalPages` or an empty page. */
function numberedPages<Page extends { page: number; totalPages: number }, Item>(
  load: (page: number) => Promise<Page>, first: number | undefined, itemsOf: (page: Page) => Item[],
): PagedList<Page, Item> {
  return pagedList(load(first ?? 0), itemsOf, (page) => (itemsOf(page).length > 0 && page.page + 1 < page.totalPages ? load(page.page + 1) : undefined));
}

export function codesResource(api: Api) {
  return {
    /** GET /v2/source-of-funds-codes (static: safe to cache). */
    sourceOfFunds: async (): Promise<Answer<'listSourceOfFundsCodes'>> => present((await api.GET('/v2/source-of-funds-codes')).data, 'listSourceOfFundsCodes'),
    /** GET /v2/purpose-codes (static: safe to cache). */
    purposes: async (): Promise<Answer<'listPurposeCodes'>> => present((await api.GET('/v2/purpose-codes')).data, 'listPurposeCodes'),
    /** GET /v2/relationship-codes (static: safe to cache). */
    relationships: async (): Promise<Answer<'listRelationshipCodes'>> => present((await api.GET('/v2/relationship-codes')).data, 'listRelationshipCodes'),
  };
}

export function providersResource(api: Api) {
  return {
    /** GET /v2/payout-providers, optionally for one country. */
    list: async (query: Query<'listPayoutProviders'> = {}): Promise<Answer<'listPayoutProviders'>> =>
      present((await api.GET('/v2/payout-providers', { params: { query } })).data, 'listPayoutProviders'),
    /** GET /v2/payout-providers/{payoutProviderId}. */
    get: async (payoutProviderId: string): Promise<Answer<'getPayoutProvider'>> =>
      present((await api.GET('/v2/payout-providers/{payoutProviderId}', { params: { path: { payoutProviderId } } })).data, 'getPayoutProvider'),
    /** GET /v2/payout-limits. */
    limits: async (query: Query<'getPayoutLimits'> = {}): Promise<Answer<'getPayoutLimits'>> =>
      present((await api.GET('/v2/payout-limits', { params: { query } })).data, 'getPayoutLimits'),
  };
}

export function membersResource(api: Api) {
  return {
    /** GET /v2/destination-members: the members you can settle to. */
    list: async (): Promise<Answer<'listDestinationMembers'>> => present((await api.GET('/v2/destination-members')).data, 'listDestinationMembers'),
  };
}

export function ratesResource(api: Api) {
  return {
    /** GET /v2/settlement-rates: locks a rate for one settlement (see its expiry). */
    lock: async (query: Query<'lockSettlementRate'>): Promise<Answer<'lockSettlementRate'>> =>
      present((await api.GET('/v2/settlement-rates', { params: { query } })).data, 'lockSettlementRate'),
  };
}

export function webhookEndpointsResource(api: Api) {
  return {
    /** POST /v2/webhook-endpoints; the answer holds the signing secret, shown this once. */
    create: async (body: Body<'createWebhookEndpoint'>): Promise<Answer<'createWebhookEndpoint'>> =>
      present((await api.POST('/v2/webhook-endpoints', { body })).data, 'createWebhookEndpoint'),
    /** GET /v2/webhook-endpoints. */
    list: async (): Promise<Answer<'listWebhookEndpoints'>> => present((await api.GET('/v2/webhook-endpoints')).data, 'listWebhookEndpoints'),
    /** GET /v2/webhook-endpoints/{webhookEndpointId}. */
    get: async (webhookEndpointId: string): Promise<Answer<'getWebhookEndpoint'>> =>
      present((await api.GET('/v2/webhook-endpoints/{webhookEndpointId}', { params: { path: { webhookEndpointId } } })).data, 'getWebhookEndpoint'),
    /** DELETE /v2/webhook-endpoints/{webhookEndpointId} (not retried: a repeat would answer 404). */
    delete: async (webhookEndpointId: string): Promise<void> => {
      await api.DELETE('/v2/webhook-endpoints/{webhookEndpointId}', { params: { path: { webhookEndpointId } } });
    },
  };
}

type EventItem = Answer<'listEvents'>['events'][number];

export function eventsResource(api: Api) {
  const load = async (query: Query<'listEvents'>) => present((await api.GET('/v2/events', { params: { query } })).data, 'listEvents');
  const list = (query: Query<'listEvents'> = {}): PagedList<Answer<'listEvents'>, EventItem> => {
    const limit = query.limit ?? PAGE_SIZE_MAX;
    return pagedList(load({ ...query, limit }), (page) => page.events, (page) => {
      const after = page.nextAfter ?? page.events.at(-1)?.eventId;
      return page.events.length > 0 && after !== undefined ? load({ limit, after }) : undefined;
    });
  };
  return {
    /**
     * GET /v2/events: your events after `after` (from the oldest kept one when left out), oldest
     * first. Awaited: one page. Iterated: every event from there, following `nextAfter` until a page comes back empty.
     */
    list,
    /** The same as iterating `list(query)`. */
    iterate: (query: Query<'listEvents'> = {}): AsyncIterable<EventItem> => list(query),
  };
}

export function listPayouts(api: Api, query: Query<'listPayouts'>): PagedList<Answer<'listPayouts'>, Answer<'listPayouts'>['payouts'][number]> {
  const load = async (page: number) =>
    present((await api.GET('/v2/payouts', { params: { query: { size: PAGE_SIZE_MAX, ...query, page } } })).data, 'listPayouts');
  return numberedPages(load, query.page, (page) => page.payouts);
}

export function listSettlements(api: Api, query: Query<'listSettlements'>): PagedList<Answer<'listSettlements'>, Answer<'listSettlements'>['settlements'][number]> {
  const load = async (page: number) =>
    present((await api.GET('/v2/settlements', { params: { query: { size: PAGE_SIZE_MAX, ...query, page } } })).data, 'listSettlements');
  return numberedPages(load, query.page, (page) => page.settlements);
}

export interface PayoutCreation extends Creation {
  payout: Answer<'createPayout'>;
}

export function payoutsResource(api: Api) {
  return {
    /**
     * POST /v2/payouts. Idempotent on `sourceMemberPayoutId`: the client sends it again after a
     * network error, a 429 or a 503, and an identical request answers the original payout with
     * `replayed: true` instead of creating a second.
     */
    async create(body: Body<'createPayout'>): Promise<PayoutCreation> {
      const { data, response } = await api.POST('/v2/payouts', { body });
      return { payout: present(data, 'createPayout'), ...creation(response) };
    },
    /** POST /v2/payouts/{payoutId}/process (idempotent: a PNDG or PRCD payout answers its state). */
    process: async (payoutId: string): Promise<Answer<'processPayout'>> =>
      present((await api.POST('/v2/payouts/{payoutId}/process', { params: { path: { payoutId } } })).data, 'processPayout'),
    /** POST /v2/payouts/{payoutId}/cancel: accepted (202); the outcome comes as events. Sent once. */
    cancel: async (payoutId: string, body: Body<'cancelPayout'>): Promise<Answer<'cancelPayout'>> =>
      present((await api.POST('/v2/payouts/{payoutId}/cancel', { params: { path: { payoutId } }, body })).data, 'cancelPayout'),
    /** GET /v2/payouts/{payoutId}. */
    get: async (payoutId: string): Promise<Answer<'getPayout'>> =>
      present((await api.GET('/v2/payouts/{payoutId}', { params: { path: { payoutId } } })).data, 'getPayout'),
    /** GET /v2/payouts/{payoutId}/status. */
    status: async (payoutId: string): Promise<Answer<'getPayoutStatus'>> =>
      present((await api.GET('/v2/payouts/{payoutId}/status', { params: { path: { payoutId } } })).data, 'getPayoutStatus'),
    /**
     * GET /v2/payouts. Awaited: the page asked for (`page` default 0, `size` default 100).
     * Iterated: every matching payout from that page on, until `totalPages`.
     */
    list: (query: Query<'listPayouts'> = {}) => listPayouts(api, query),
    /** The same as iterating `list(query)`. */
    iterate: (query: Query<'listPayouts'> = {}): AsyncIterable<Answer<'listPayouts'>['payouts'][number]> => listPayouts(api, query),
  };
}

export interface SettlementCreation extends Creation {
  settlement: Answer<'createSettlement'>;
  /** The Idempotency-Key the request was sent with: keep it to send the same creation again safely. */
  idempotencyKey: string;
}

export interface CreateSettlementOptions {
  /** Sent as `Idempotency-Key`, the same on every retry; a random UUID when left out. */
  idempotencyKey?: string;
}

export function settlementsResource(api: Api) {
  return {
    /**
     * POST /v2/settlements with an `Idempotency-Key` (yours, or a new random UUID), sent again with
     * the same key after a network error, a 429, a 503 or a 409 REQUEST_IN_PROGRESS. The same key
     * and body later answer the first settlement with `replayed: true` (keys are kept 24 h).
     */
    async create(body: Body<'createSettlement'>, options: CreateSettlementOptions = {}): Promise<SettlementCreation> {
      const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
      const { data, response } = await api.POST('/v2/settlements', { body, params: { header: { 'idempotency-key': idempotencyKey } } });
      return { settlement: present(data, 'createSettlement'), idempotencyKey, ...creation(response) };
    },
    /** GET /v2/settlements/{settlementId}. */
    get: async (settlementId: string): Promise<Answer<'getSettlement'>> =>
      present((await api.GET('/v2/settlements/{settlementId}', { params: { path: { settlementId } } })).data, 'getSettlement'),
    /** POST /v2/settlements/{settlementId}/cancel (202). Sent once. */
    cancel: async (settlementId: string): Promise<Answer<'cancelSettlement'>> =>
      present((await api.POST('/v2/settlements/{settlementId}/cancel', { params: { path: { settlementId } } })).data, 'cancelSettlement'),
    /** GET /v2/settlement-context: your corridors, limits and prefund. */
    context: async (): Promise<Answer<'getSettlementContext'>> => present((await api.GET('/v2/settlement-context')).data, 'getSettlementContext'),
    /**
     * GET /v2/settlements. Awaited: the page asked for (`page` default 0, `size` default 100).
     * Iterated: every matching settlement from that page on, until `totalPages`.
     */
    list: (query: Query<'listSettlements'> = {}) => listSettlements(api, query),
    /** The same as iterating `list(query)`. */
    iterate: (query: Query<'listSettlements'> = {}): AsyncIterable<Answer<'listSettlements'>['settlements'][number]> => listSettlements(api, query),
  };
}
