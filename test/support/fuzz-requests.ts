// Test support for the fuzz suite: HTTP requests generated from the operations of the served
// OpenAPI document (path parameters, query strings, headers, bodies and content types, valid
// and hostile), sent byte for byte, and the checks every answer must pass.
import fc from 'fast-check';
import assert from 'node:assert/strict';
import http from 'node:http';
import { hostileString, hostileValue, deepNesting, RawJson, resolve, toJsonText, toPlainText, valueFor, type Schema, type ValueContext } from './fuzz-values.ts';

export interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  /** The OpenAPI path template, `/v2/payouts/{payoutId}`. */
  path: string;
  parameters: Parameter[];
  body?: { contentType: string; schema: Schema; example: unknown; required: boolean };
  secured: boolean;
}

export type OpenApiDocument = ValueContext['doc'] & { paths: Record<string, Record<string, Record<string, unknown>>> };

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = (op['requestBody'] as { required?: boolean; content: Record<string, { schema: Schema; example?: unknown }> } | undefined);
      const [contentType, media] = content ? Object.entries(content.content)[0]! : [];
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: (op['parameters'] ?? []) as Parameter[],
        ...(media ? { body: { contentType: contentType!, schema: media.schema, example: media.example ?? (media.schema['examples'] as unknown[] | undefined)?.[0], required: content!.required ?? false } } : {}),
        secured: Array.isArray(op['security']) && (op['security'] as unknown[]).length > 0,
      });
    }
  }
  return operations;
}

export interface FuzzRequest {
  method: string;
  /** Path and query exactly as they go on the wire. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface Credentials {
  /** A token with every scope. */
  accessToken: string;
  /** A token with the payouts scope only. */
  narrowToken: string;
  /** Another member's token: the first member's resources are not found for it. */
  otherMemberToken: string;
  basic: string;
}

/** Percent-encodings a router or a decoder may trip over. */
const ODD_ENCODINGS = ['%00', '%E0%A4%A', '%ZZ', '%zz', '%2F', '%252F', '%25', '%', '%ED%A0%80', '%C0%AF', '%FF', '%F0%9F%98%80', '..', '.', '%2E%2E', '+', '%20', '%0A', '%7F', '%2500'];

/** Percent-encodes the UTF-8 bytes of the text (a lone surrogate goes as U+FFFD: a URL cannot carry one). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Text for a path parameter or a query value: encoded hostile values, odd encodings, long ones. */
const encodedText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: hostileValue.map((v) => percentEncode(toPlainText(v).slice(0, 3_000))) },
  { weight: 3, arbitrary: fc.array(fc.oneof(fc.constantFrom(...ODD_ENCODINGS), fc.string({ maxLength: 4 }).map(percentEncode)), { minLength: 1, maxLength: 4 }).map((a) => a.join('')) },
  { weight: 1, arbitrary: fc.constantFrom(199, 200, 201, 1_000, 20_000).map((n) => 'a'.repeat(n)) },
);

function encodeValue(value: unknown): string {
  return percentEncode(toPlainText(value));
}

/** A path parameter: a known id, a value from the schema, or (hostile) an odd encoding. */
function pathArb(op: Operation, ctx: ValueContext): fc.Arbitrary<string> {
  const params = op.parameters.filter((p) => p.in === 'path');
  const segments = op.path.split(/(\{[^}]+\})/);
  const parts = segments.map((segment) => {
    const match = /^\{(.+)\}$/.exec(segment);
    if (!match) return fc.constant(segment);
    const param = params.find((p) => p.name === match[1]);
    const valid = valueFor(param?.schema ?? { type: 'string' }, { ...ctx, hostile: false }, match[1]).map((v) => percentEncode(toPlainText(v)));
    return ctx.hostile ? fc.oneof({ weight: 2, arbitrary: valid }, { weight: 3, arbitrary: encodedText }) : valid;
  });
  const path = fc.tuple(...parts).map((p) => p.join(''));
  if (!ctx.hostile) return path;
  // the same route spelled otherwise: a trailing slash, doubled or dotted segments, another case
  const respelled = fc.tuple(path, fc.constantFrom((p: string) => `${p}/`, (p: string) => `/${p}`, (p: string) => p.replace('/v2/', '/v2/./'), (p: string) => p.replace('/v2/', '/v2//'), (p: string) => p.toUpperCase(), (p: string) => `${p}%2F`)).map(([p, f]) => f(p));
  return fc.oneof({ weight: 12, arbitrary: path }, { weight: 1, arbitrary: respelled });
}

/** The query string: declared parameters (valid or hostile), sometimes repeated or unknown ones. */
function queryArb(op: Operation, ctx: ValueContext): fc.Arbitrary<string> {
  const params = op.parameters.filter((p) => p.in === 'query');
  const pairs = params.map((p) =>
    fc.option(
      ctx.hostile
        ? fc.oneof({ weight: 3, arbitrary: valueFor(p.schema, ctx, p.name).map(encodeValue) }, { weight: 1, arbitrary: encodedText }).map((v) => `${p.name}=${v}`)
        : valueFor(p.schema, ctx, p.name).map((v) => `${p.name}=${encodeValue(v)}`),
      { freq: 2 },
    ),
  );
  const extras = ctx.hostile
    ? fc.array(
        fc.oneof(
          params.length > 0 ? fc.constantFrom(...params.map((p) => p.name)).chain((name) => encodedText.map((v) => `${name}=${v}`)) : fc.constant('size=1'),
          fc.constantFrom('unknown=1', '=', '&', 'a', '%00=1', '%ZZ=%ZZ', 'a[b]=1', '__proto__=x', 'constructor[prototype]=1'),
        ),
        { maxLength: 3 },
      )
    : fc.constant([] as string[]);
  return fc.tuple(fc.tuple(...pairs), extras).map(([declared, extra]) => {
    const all = [...declared.filter((p): p is string => p !== null), ...extra];
    return all.length > 0 ? `?${all.join('&')}` : '';
  });
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8'];
const ODD_TYPES = [
  'application/json; charset=latin1', 'application/json; charset=utf-16', 'application/json; charset="utf-8"', 'application/JSON',
  'application/json;;', 'application/vnd.api+json', 'text/plain', 'text/json', 'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x', 'application/octet-stream', '*/*', ';', 'application/json, text/plain', 'application/json; charset=utf-8; charset=latin1',
];

/** Whole bodies that are not a JSON document of the schema's shape. */
const hostileBody: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom('', ' ', 'null', '[]', '"x"', '1', 'true', '{', '{"a":1', 'not json', '\ufeff{}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '{}{}', '{} x', '\u0000', 'grant_type=client_credentials&scope=payouts').map((s) => Buffer.from(s)),
  fc.constantFrom([0xff, 0xfe, 0x7b, 0x7d], [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d], [0xef, 0xbb, 0xbf, 0x7b, 0x7d]).map((b) => Buffer.from(b)),
  deepNesting.map((r) => Buffer.from(r.text)),
  fc.constant(Buffer.from(`{"a":"${'x'.repeat(70_000)}"}`)),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
);

function jsonBodyArb(op: Operation, ctx: ValueContext): fc.Arbitrary<BodyPart> {
  const schema = op.body!.schema;
  const document = valueFor(schema, ctx, '', op.body!.example).map((v) => Buffer.from(toJsonText(v)));
  if (!ctx.hostile) return document.map((body) => ({ body, contentType: 'application/json' }));
  const contentType = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...JSON_TYPES) }, { weight: 2, arbitrary: fc.constantFrom(...ODD_TYPES) }, { weight: 1, arbitrary: fc.constant(undefined) });
  return fc.record({ body: fc.oneof({ weight: 3, arbitrary: document }, { weight: 1, arbitrary: hostileBody }), contentType }, { requiredKeys: ['body'] });
}

type BodyPart = { body?: Buffer; contentType?: string; credentialsInBody?: boolean };

/**
 * A form body for /oauth2/token: grant_type and scope (valid or hostile), the client's credentials
 * in the body instead of HTTP Basic now and then, and (hostile) repeated or odd fields.
 */
function formBodyArb(op: Operation, ctx: ValueContext, credentials: Credentials): fc.Arbitrary<BodyPart> {
  const schema = resolve(op.body!.schema, ctx.doc);
  const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
  const field = (name: string, example: string) => valueFor(properties[name] ?? { type: 'string' }, ctx, name, example).map((v) => `${name}=${encodeValue(v)}`);
  const [clientId, secret] = Buffer.from(credentials.basic.slice('Basic '.length), 'base64').toString().split(':') as [string, string];
  const inBody = fc.oneof({ weight: 3, arbitrary: fc.constant([] as string[]) }, { weight: 1, arbitrary: fc.tuple(field('client_id', clientId), field('client_secret', secret)) });
  const odd = ctx.hostile
    ? fc.array(fc.oneof(fc.constantFrom('grant_type=client_credentials', 'scope=payouts', '%00=1', 'a=%ZZ', '=', '&&', `client_id=${clientId}`), encodedText.map((v) => `scope=${v}`)), { maxLength: 3 })
    : fc.constant([] as string[]);
  const form = fc.tuple(field('grant_type', 'client_credentials'), field('scope', 'payouts settlements member'), inBody, odd).map(([grant, scope, creds, extra]) => ({
    body: Buffer.from([grant, scope, ...creds, ...extra].join('&')),
    credentialsInBody: creds.length > 0,
  }));
  if (!ctx.hostile) return form.map((f) => ({ ...f, contentType: 'application/x-www-form-urlencoded' }));
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8') },
    { weight: 2, arbitrary: fc.constantFrom(...ODD_TYPES, 'application/x-www-form-urlencoded; charset=utf-16') },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  return fc.tuple(fc.oneof({ weight: 3, arbitrary: form }, { weight: 1, arbitrary: hostileBody.map((body) => ({ body, credentialsInBody: false })) }), contentType).map(
    ([f, type]) => ({ ...f, ...(type === undefined ? {} : { contentType: type }) }),
  );
}

function authorizationArb(op: Operation, ctx: ValueContext, credentials: Credentials): fc.Arbitrary<string | undefined> {
  const good = op.path === '/oauth2/token' ? credentials.basic : `Bearer ${credentials.accessToken}`;
  if (!ctx.hostile) return fc.constant(good);
  const junk = fc.constantFrom(
    undefined, 'Bearer', 'Bearer ', 'Bearer junk', 'Basic', 'Basic Og==', 'Basic %%%', `Basic ${Buffer.from('a\u0000:b').toString('base64')}`,
    `Basic ${Buffer.from('\u00ff\u00fe:\u0000').toString('base64')}`, `Bearer ${credentials.accessToken}x`, `Bearer  ${credentials.accessToken}`,
    `bearer ${credentials.accessToken}`, `Bearer ${credentials.narrowToken}`, `Bearer ${credentials.otherMemberToken}`, `Bearer ${credentials.accessToken.split('.').slice(0, 2).join('.')}.`,
    `Bearer ${'a'.repeat(8_000)}`, `Bearer \u00e9\u00ff`, `Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.`,
  );
  return fc.oneof({ weight: 6, arbitrary: fc.constant(good) }, { weight: 2, arbitrary: junk });
}

/** A header value Node will send (no NUL or line breaks): hostile text squeezed into latin-1. */
const headerText = (ctx: ValueContext, schema: Schema | undefined) => {
  const valid = valueFor(schema ?? { type: 'string', maxLength: 40 }, { ...ctx, hostile: false }).map(toPlainText);
  if (!ctx.hostile) return valid;
  const odd = fc.oneof(hostileString, fc.string({ unit: 'binary', maxLength: 300 })).map((s) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, (c) => `\\${c.charCodeAt(0)}`).slice(0, 4_000));
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: odd });
};

/** Every request an operation may receive: `hostile` false gives well-formed ones only. */
export function requestArb(op: Operation, ctx: ValueContext, credentials: Credentials): fc.Arbitrary<FuzzRequest> {
  const headerParams = op.parameters.filter((p) => p.in === 'header');
  const headers = fc.record({
    authorization: authorizationArb(op, ctx, credentials),
    requestId: ctx.hostile ? fc.option(headerText(ctx, undefined), { freq: 3 }) : fc.constant(null),
    declared: fc.tuple(...headerParams.map((p) => fc.option(headerText(ctx, p.schema), { freq: 2 }).map((v) => [p.name, v] as const))),
  });
  const body = op.body ? (op.body.contentType === 'application/json' ? jsonBodyArb(op, ctx) : formBodyArb(op, ctx, credentials)) : noBodyArb(ctx);
  const method = ctx.hostile ? fc.oneof({ weight: 12, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom('PUT', 'PATCH', 'DELETE', 'POST', 'GET', 'HEAD', 'OPTIONS') }) : fc.constant(op.method);
  return fc.record({ method, path: pathArb(op, ctx), query: queryArb(op, ctx), headers, body }).map(({ method, path, query, headers: h, body: b }) => {
    const out: Record<string, string> = {};
    // credentials in a well-formed token body go without the Basic header (both at once is refused)
    const basicToo = b.credentialsInBody === true && h.authorization === credentials.basic;
    if (h.authorization !== undefined && !basicToo) out['authorization'] = h.authorization;
    if (h.requestId !== null) out['x-request-id'] = h.requestId;
    for (const [name, value] of h.declared) if (value !== null) out[name] = value;
    if (b.contentType !== undefined) out['content-type'] = b.contentType;
    const sendBody = method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS' ? b.body : undefined;
    return { method, target: `${path}${query}`, headers: out, ...(sendBody ? { body: sendBody } : {}) };
  });
}

/** Operations without a body still get one now and then (hostile), as clients do send them. */
function noBodyArb(ctx: ValueContext): fc.Arbitrary<BodyPart> {
  if (!ctx.hostile) return fc.constant({});
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.record({ body: hostileBody, contentType: fc.option(fc.constantFrom(...JSON_TYPES, ...ODD_TYPES), { nil: undefined }) }, { requiredKeys: ['body'] }) },
  );
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

const ANSWER_TIMEOUT_MS = 20_000;

export function send(baseUrl: string, request: FuzzRequest): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname, port, agent: false, method: request.method, path: request.target, headers: { ...request.headers, ...(request.body ? { 'content-length': String(request.body.length) } : {}) }, timeout: ANSWER_TIMEOUT_MS },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(request.body);
  });
}

/** CONTRACT section 2: each code of the Error body with its status. */
export const CONTRACT_CODES: Record<string, number> = {
  VALIDATION_ERROR: 400, UNAUTHORIZED: 401, INSUFFICIENT_SCOPE: 403, NOT_FOUND: 404, INVALID_STATE: 409,
  DUPLICATE_SOURCE_MEMBER_PAYOUT_ID: 409, IDEMPOTENCY_KEY_REUSED: 422, REQUEST_IN_PROGRESS: 409,
  UNKNOWN_PAYOUT_PROVIDER: 422, UNSUPPORTED_CURRENCY: 422, UNSUPPORTED_PAYOUT_METHOD: 422, LIMIT_EXCEEDED: 422, INSUFFICIENT_PREFUND: 422,
  UNKNOWN_DESTINATION_MEMBER: 422, CORRIDOR_INACTIVE: 422, RATE_NOT_FOUND: 422, RATE_EXPIRED: 422, RATE_ALREADY_USED: 422, RATE_MISMATCH: 422,
  AMOUNT_ABOVE_CORRIDOR_MAX: 422, PAYLOAD_TOO_LARGE: 413, UNSUPPORTED_MEDIA_TYPE: 415, RATE_LIMITED: 429,
};
/** RFC 6749 section 5.2 error codes, with the status CONTRACT section 3 gives each. */
const OAUTH_CODES: Record<string, number> = { invalid_request: 400, unsupported_grant_type: 400, invalid_scope: 400, invalid_grant: 400, unauthorized_client: 400, invalid_client: 401 };

const DETAIL_LENGTH_MAX = 500;

/** A success is JSON (204 has no body). */
function checkSuccess(request: FuzzRequest, answer: Answer, where: string): void {
  if (answer.status === 204) return assert.equal(answer.text, '', `204 with a body: ${where}`);
  assert.match(String(answer.headers['content-type']), /^application\/json/, `content type: ${where}`);
  assert.doesNotThrow(() => JSON.parse(answer.text), `body is not JSON: ${where}`);
}

/** What every answer must be: no 5xx, a request id, and a 4xx in the contract's error shape. */
export function checkAnswer(request: FuzzRequest, answer: Answer): void {
  const where = `${request.method} ${request.target.slice(0, 300)} -> ${answer.status} ${answer.text.slice(0, 300)}`;
  assert.ok(answer.status < 500, `5xx: ${where}`);
  assert.ok(typeof answer.headers['x-request-id'] === 'string' && answer.headers['x-request-id'].length > 0, `no x-request-id: ${where}`);
  // CONTRACT section 2: the client's id when it is 1..128 printable ASCII characters, else a new one
  const sent = request.headers['x-request-id']?.replace(/^[ \t]+|[ \t]+$/g, ''); // HTTP drops the whitespace around a value
  // (a request the HTTP parser refused was never read: it gets a new one. An answer to HEAD has no
  // body to tell such a refusal by, so there either is right)
  const unread = /"detail":"(headers: at most|request: malformed HTTP)/.test(answer.text);
  const echoed = answer.headers['x-request-id'] === sent;
  const generated = /^[0-9a-f-]{36}$/.test(answer.headers['x-request-id']);
  if (request.method === 'HEAD' && answer.status === 400) assert.ok(echoed || generated, `x-request-id: ${where}`);
  else if (sent !== undefined && /^[\x21-\x7e]{1,128}$/.test(sent) && !unread) assert.ok(echoed, `x-request-id not echoed: ${where}`);
  else assert.ok(generated, `x-request-id not generated: ${where}`);
  if (request.method === 'HEAD') return assert.equal(answer.text, '', `HEAD with a body: ${where}`);
  if (answer.status < 400) return checkSuccess(request, answer, where);
  assert.match(String(answer.headers['content-type']), /^application\/json/, `content type: ${where}`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    assert.fail(`body is not JSON: ${where}`);
  }
  const token = request.target === '/oauth2/token' || request.target.startsWith('/oauth2/token?');
  if (token && request.method === 'POST' && answer.status !== 413 && answer.status !== 429) {
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description'], `token error body: ${where}`);
    assert.equal(OAUTH_CODES[String(body['error'])], answer.status, `token error code: ${where}`);
    if (answer.status === 401) assert.match(String(answer.headers['www-authenticate']), /^Basic /, `token 401 challenge: ${where}`);
    return;
  }
  assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'message'], `error body: ${where}`);
  assert.equal(CONTRACT_CODES[String(body['code'])], answer.status, `code and status: ${where}`);
  assert.ok(typeof body['message'] === 'string' && typeof body['detail'] === 'string', `message and detail: ${where}`);
  // the detail names a field and a rule: it never echoes a long input back
  assert.ok(String(body['detail']).length <= DETAIL_LENGTH_MAX, `detail of ${String(body['detail']).length} characters: ${where}`);
  if (answer.status === 401) assert.match(String(answer.headers['www-authenticate']), /^Bearer/, `401 challenge: ${where}`);
  if (answer.status === 429) assert.ok(answer.headers['retry-after'], `429 Retry-After: ${where}`);
}

export { RawJson };
