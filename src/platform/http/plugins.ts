// The HTTP conventions of CONTRACT section 2 that hold on every route: request ids, the single
// error handler, 404s, content types, body size, security headers and the per-client rate limit.
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import helmet from 'helmet';
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { SharedRateLimit } from '../rate-limit/store.ts';
import { randomUUID } from 'node:crypto';
import { isDatabaseUnavailable } from '../database/pool.ts';
import { ApiError, ErrorBody } from './errors.ts';
import { DatabaseBusyError, isTransientDatabaseError } from '../database/transaction.ts';
import { describeValidationError } from './validation.ts';
import { applyBounds, applyRouteBounds } from './bounds.ts';
import { findDuplicateKey, findUnstorableString, JSON_DEPTH_MAX, mayHoldUnstorableString, nestsDeeperThan, urlMayHoldNul } from './input-guards.ts';

const REQUEST_ID_MAX = 128;
/** What a client is told to wait while the database is unreachable: its pool reconnects on the next request. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

/** The client's X-Request-Id when it is 1..128 printable ASCII characters; otherwise a new UUID. */
export function requestIdFor(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined && value.length <= REQUEST_ID_MAX && PRINTABLE_ASCII.test(value)) return value;
  return randomUUID();
}

/** Seconds a client is asked to wait after a transaction lost its races (Retry-After). */
const BUSY_RETRY_AFTER_SECONDS = 1;

function toApiError(error: FastifyError): ApiError {
  if (error instanceof ApiError) return error;
  // a transaction that lost to concurrent ones every time it was tried (or, unretried, once):
  // nothing was written, and the same request may succeed a moment later
  if (error instanceof DatabaseBusyError || isTransientDatabaseError(error)) {
    return new ApiError('SERVICE_UNAVAILABLE', 'The service is busy; nothing was done.', 'retry shortly', {
      'retry-after': String(BUSY_RETRY_AFTER_SECONDS),
    });
  }
  if (error.validation && error.validation.length > 0) {
    const first = error.validation[0]!;
    return new ApiError('VALIDATION_ERROR', 'The request is not valid.', describeValidationError(first as never, error.validationContext));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', 'The request body is larger than 64 KiB.', 'body: at most 65536 bytes');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON.', 'Content-Type: must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('VALIDATION_ERROR', 'The request body is empty.', 'body: must be a JSON document');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('VALIDATION_ERROR', 'The request body is not valid JSON.', 'body: malformed JSON');
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return new ApiError('VALIDATION_ERROR', 'The request is not valid.', error.code ? `request: ${error.code}` : 'body: malformed JSON');
  }
  if (error.statusCode === 503) return new ApiError('SERVICE_UNAVAILABLE', 'The service is not available right now.', 'retry later');
  // an outage or a restart of the database: the client retries later; a creation whose commit
  // landed before the connection broke is recognised by its Idempotency-Key or sourceMemberPayoutId
  if (isDatabaseUnavailable(error)) {
    return new ApiError('SERVICE_UNAVAILABLE', 'The service is not available right now.', `retry after ${DATABASE_RETRY_AFTER_SECONDS} seconds`, {
      'retry-after': String(DATABASE_RETRY_AFTER_SECONDS),
    });
  }
  if (error.statusCode === 404) return new ApiError('NOT_FOUND', 'Nothing is found at this address.', '');
  return new ApiError('INTERNAL_ERROR', 'Something went wrong on our side.', 'quote the X-Request-Id when you contact us');
}

const unstorable = (field: string) =>
  new ApiError('VALIDATION_ERROR', 'The request is not valid.', `${field}: must not contain NUL (U+0000) or an unpaired surrogate`);

/** Why a parsed JSON body is refused: a repeated key, or text that cannot be stored as sent. */
function refuseJsonBody(text: string, value: unknown): ApiError | undefined {
  const repeated = findDuplicateKey(text);
  if (repeated !== undefined) return new ApiError('VALIDATION_ERROR', 'The request body repeats a key.', `${repeated}: must appear only once`);
  if (!mayHoldUnstorableString(text)) return undefined;
  const field = findUnstorableString(value);
  return field === undefined ? undefined : unstorable(field || 'body');
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(error.toBody());
}

// Security headers from helmet, its middleware built once (the Fastify wrapper builds it again on
// every request, parsing the policy each time). JSON answers need no scripts; /docs sets its own
// policy (see openapi.ts).
const securityHeaders = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  hsts: { maxAge: 31_536_000, includeSubDomains: true },
});

/**
 * Fastify's `frameworkErrors`: the router refuses a URL before any hook runs (malformed
 * percent-encoding, a path parameter over the router's length limit). Those answers get the
 * Error body, the request id and the security headers as well; the URL is not echoed.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  const detail =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? `path: a path parameter is longer than ${MAX_PARAM_LENGTH} characters`
      : error.code === 'FST_ERR_BAD_URL'
        ? 'path: malformed percent-encoding'
        : `request: ${error.code}`;
  request.log.info({ code: 'VALIDATION_ERROR', detail }, 'request refused');
  securityHeaders(request.raw, reply.raw, () => {
    sendError(reply, new ApiError('VALIDATION_ERROR', 'The request address is not valid.', detail));
  });
}

/** Helmet's headers as plain values, for answers written straight to a socket (no response object). */
function fixedSecurityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: unknown) => (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
  };
  securityHeaders({} as IncomingMessage, response as unknown as ServerResponse, () => undefined);
  return headers;
}

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refuses a request before Fastify sees it
 * (headers over http.maxHeaderSize, malformed HTTP, a request not received in time). The answer
 * still has the Error body, a request id and the security headers; then the connection closes.
 */
export function clientErrors(log: FastifyBaseLogger) {
  const fixedHeaders = Object.entries(fixedSecurityHeaders());
  return (error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // As Node itself does: an answer already begun on this connection cannot be followed by another
    // (a kept-alive connection's earlier, finished answers do not count).
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const detail =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? `headers: at most ${http.maxHeaderSize} bytes in all`
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'request: not received in time'
          : 'request: malformed HTTP';
    log.info({ requestId, code: 'VALIDATION_ERROR', detail }, 'request refused');
    const body = JSON.stringify(new ApiError('VALIDATION_ERROR', 'The request is not valid HTTP.', detail).toBody());
    const headers = [
      ['content-type', 'application/json; charset=utf-8'], ['content-length', String(Buffer.byteLength(body))],
      ['x-request-id', requestId], ['connection', 'close'], ...fixedHeaders,
    ];
    // An answer to HEAD has no body (a client would read one as garbage). The method is known when
    // the bytes the parser refused begin with the request line, as they do unless the headers
    // arrived in several reads.
    const head = Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.end(`HTTP/1.1 400 Bad Request\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${head ? '' : body}`);
  };
}

/** How much of an unknown path a 404 names (a URL may be 16 KiB long; the answer stays short). */
const ROUTE_SHOWN_MAX = 200;

/** The router's limit on one path parameter (ids are far shorter). */
export const MAX_PARAM_LENGTH = 200;

export interface HttpPlatformOptions {
  rateLimitPerMinute: number;
  /** Counts shared by every process on the database; unset: each process counts alone (mock mode). */
  rateLimitStore?: SharedRateLimit;
  /** The rate-limit key of an authenticated request (its client id). */
  clientKey(request: FastifyRequest): string | undefined;
}

/** The plugin's store interface over the shared counts (one store for every route: windows are passed in). */
function sharedStore(shared: SharedRateLimit): FastifyRateLimitStoreCtor {
  return class SharedStore implements FastifyRateLimitStore {
    incr(key: string, callback: Parameters<SharedRateLimit['incr']>[1], timeWindowMs: number): void {
      shared.incr(key, callback, timeWindowMs);
    }
    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

export async function registerHttpPlatform(app: FastifyInstance, options: HttpPlatformOptions) {
  app.addSchema(applyBounds(ErrorBody));
  // text/plain is on by default in Fastify; this API speaks JSON only.
  app.removeContentTypeParser('text/plain');
  // Action routes (process) take no body; many clients still send Content-Type: application/json
  // with an empty one. That is read as no body rather than refused as malformed JSON.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    // kept as received: a signed request's Content-Digest is checked against these bytes
    request.rawBody = text;
    if (text === '') return done(null, undefined);
    if (nestsDeeperThan(text, JSON_DEPTH_MAX)) {
      return done(new ApiError('VALIDATION_ERROR', 'The request body is nested too deeply.', `body: at most ${JSON_DEPTH_MAX} levels of objects and arrays`), undefined);
    }
    parseJson(request, text, (error, value) => {
      if (error) return done(error, undefined);
      const refusal = refuseJsonBody(text, value);
      if (refusal) done(refusal, undefined);
      else done(null, value);
    });
  });
  // Path parameters and query strings are text too: a %00 in them is refused before validation.
  app.addHook('preValidation', async (request) => {
    if (!urlMayHoldNul(request.url)) return;
    const field = findUnstorableString(request.params) ?? findUnstorableString(request.query);
    if (field !== undefined) throw unstorable(field || 'path');
  });

  // While closing, requests that still arrive on open connections get the contract's 503 body
  // (Fastify's built-in return503OnClosing answers with its own body, so it is off).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) {
      reply.header('connection', 'close');
      throw new ApiError('SERVICE_UNAVAILABLE', 'The service is shutting down.', 'retry shortly', { 'retry-after': '1' });
    }
  });

  app.addHook('onRequest', (request, reply, done) => securityHeaders(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined)));

  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    max: options.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => options.clientKey(request) ?? `ip:${request.ip}`,
    ...(options.rateLimitStore === undefined ? {} : { store: sharedStore(options.rateLimitStore) }),
    errorResponseBuilder: (_request, context) =>
      new ApiError('RATE_LIMITED', 'Too many requests for this client.', `limit: ${context.max} requests per minute`, {
        'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))),
      }),
  });

  // A route that declares no query parameters takes none: `?anything` is a 400, as for bodies.
  // Every string, array and integer of a route's schemas gets a bound (bounds.ts).
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    if (route.url.startsWith('/v2/') && schema['querystring'] === undefined) {
      schema['querystring'] = { type: 'object', properties: {}, additionalProperties: false };
    }
    applyRouteBounds(schema);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.code === 'SERVICE_UNAVAILABLE') request.log.warn({ err: error }, 'request refused: service unavailable');
    else if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: apiError.code, detail: apiError.detail }, 'request refused');
    return sendError(reply, apiError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const shown = path.length > ROUTE_SHOWN_MAX ? `${path.slice(0, ROUTE_SHOWN_MAX)}...` : path;
    return sendError(reply, new ApiError('NOT_FOUND', 'Nothing is found at this address.', `route: ${request.method} ${shown}`));
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** A JSON body's text exactly as received (undefined when there was none). */
    rawBody?: string;
  }
}
