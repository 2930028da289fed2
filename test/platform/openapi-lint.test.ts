// The served OpenAPI document against Spectral's OpenAPI ("oas") and OWASP API Security rulesets:
// no errors. Rules switched off, and results left out, are listed here with the reason.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Document, Spectral } from '@stoplight/spectral-core';
import Parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import owasp from '@stoplight/spectral-owasp-ruleset';
import { startTestService, type TestService } from '../support/service.ts';
import { OPERATION_IDS } from '../../src/platform/http/openapi-document.ts';
import { applyBounds, ARRAY_ITEMS_MAX, TEXT_LENGTH_MAX } from '../../src/platform/http/bounds.ts';

/** Rules switched off for the whole document, each with why. */
const RULES_OFF: Record<string, string> = {
  'owasp:api8:2023-define-cors-origin':
    'the API is for servers (it takes client secrets and bearer tokens): it sends no CORS headers, so browsers cannot call it cross-origin, by design',
  'owasp:api2:2023-no-http-basic':
    'RFC 6749 section 2.3.1 requires HTTP Basic client authentication at the token endpoint; it is used there only, never for API calls',
  'owasp:api2:2023-short-lived-access-tokens':
    'client credentials issue no refresh tokens (RFC 6749 section 4.4.3); access tokens last 300 seconds',
};

/** Results left out by where they are, each with why. */
const LEFT_OUT: Array<{ rule: string; path: RegExp; why: string }> = [
  { rule: '*', path: /\.(example|examples)(\.|$)/, why: 'example payloads are data, not schemas: a provider\'s field rules carry keys named type, required and example, which path-based rules take for a schema' },
  { rule: 'owasp:api4:2023-rate-limit', path: /^paths\.\/(healthz|readyz)\./, why: 'the probes are exempt from the rate limit, so that a load balancer is never refused' },
];

let service: TestService;
let document: Record<string, unknown>;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  document = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, unknown>;
});
after(async () => {
  await service.stop();
});

test('Spectral (oas recommended, OWASP recommended): no errors', async () => {
  const spectral = new Spectral();
  const rules = Object.fromEntries(Object.keys(RULES_OFF).map((rule) => [rule, 'off']));
  spectral.setRuleset({ extends: [[oas, 'recommended'], [owasp, 'recommended']], rules } as never);
  const results = await spectral.run(new Document(JSON.stringify(document), Parsers.Json as never));
  const errors = results
    .filter((r) => r.severity === 0)
    .filter((r) => !LEFT_OUT.some((l) => (l.rule === '*' || l.rule === r.code) && l.path.test(r.path.join('.'))));
  assert.deepEqual(errors.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`), []);
});

test('every operation has its operationId, unique, from the one table of names', () => {
  const paths = document['paths'] as Record<string, Record<string, { operationId?: string }>>;
  const seen = new Set<string>();
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      assert.equal(operation.operationId, OPERATION_IDS[`${method.toUpperCase()} ${path}`], `${method} ${path}`);
      assert.ok(!seen.has(operation.operationId!), `${operation.operationId} is used twice`);
      seen.add(operation.operationId!);
    }
  }
});

test('answers document their headers: request id and rate limit everywhere, Retry-After on 429 and 503, Location and Idempotent-Replayed on creation', () => {
  const paths = document['paths'] as Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
  const headers = (path: string, method: string, status: string) => Object.keys(paths[path]![method]!.responses[status]!.headers ?? {}).sort();
  assert.deepEqual(headers('/v2/payouts', 'post', '201'), ['Idempotent-Replayed', 'Location', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']);
  assert.deepEqual(headers('/v2/payouts', 'post', '429'), ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']);
  assert.deepEqual(headers('/readyz', 'get', '503'), ['Retry-After', 'X-Request-Id']);
  assert.deepEqual(headers('/v2/webhook-endpoints', 'post', '201'), ['Location', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']);
});

test('the Error code is an open set: a string with the known codes listed, so a new code breaks no strict client', () => {
  const error = (document['components'] as { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> }).schemas['Error']!;
  assert.equal(error.properties['code']!['enum'], undefined);
  assert.ok((error.properties['code']!['x-extensible-enum'] as string[]).includes('VALIDATION_ERROR'));
});

test('bounds: what a schema states is kept; the rest gets the bound its format implies, or the default', () => {
  const schema = applyBounds({
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      at: { type: 'string', format: 'date-time' },
      note: { type: 'string' },
      short: { type: 'string', maxLength: 10 },
      kind: { type: 'string', enum: ['A', 'B'] },
      tags: { type: 'array', items: { type: 'string' } },
      count: { type: 'integer', minimum: 0, maximum: 100 },
      big: { type: 'integer', minimum: 0, maximum: 2 ** 40 },
      any: { type: 'integer' },
      either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    },
  });
  const p = schema.properties as Record<string, Record<string, unknown>>;
  assert.equal(p['id']!['maxLength'], 36);
  assert.equal(p['at']!['maxLength'], 35);
  assert.equal(p['note']!['maxLength'], TEXT_LENGTH_MAX);
  assert.equal(p['short']!['maxLength'], 10);
  assert.equal(p['kind']!['maxLength'], undefined);
  assert.equal(p['tags']!['maxItems'], ARRAY_ITEMS_MAX);
  assert.equal((p['tags']!['items'] as Record<string, unknown>)['maxLength'], TEXT_LENGTH_MAX);
  assert.deepEqual([p['count']!['format'], p['count']!['minimum'], p['count']!['maximum']], ['int32', 0, 100]);
  assert.equal(p['big']!['format'], 'int64');
  assert.deepEqual([p['any']!['format'], p['any']!['minimum'], p['any']!['maximum']], ['int32', -2_147_483_648, 2_147_483_647]);
  assert.equal(((p['either']!['anyOf'] as Array<Record<string, unknown>>)[0]!)['maxLength'], TEXT_LENGTH_MAX);
});

test('a bound added to a request schema is enforced: a sandbox rejectReason over 1024 characters is a 400 naming it', async () => {
  const { token } = await import('../support/http.ts');
  const accessToken = await token(service.url, { scope: 'payouts' });
  const response = await fetch(`${service.url}/v2/sandbox/payouts/0b8f8a4e-6f1d-4c1a-9d43-2a7c5e9b1f20/simulate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ payoutStatus: 'RJCT', rejectReason: 'x'.repeat(TEXT_LENGTH_MAX + 1) }),
  });
  assert.equal(response.status, 400);
  assert.match(((await response.json()) as { detail: string }).detail, /^rejectReason: must NOT have more than \d+ characters$/);
});

test('request bodies and success answers are named component schemas, not inline ones', () => {
  const paths = document['paths'] as Record<string, Record<string, {
    requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> };
    responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
  }>>;
  const inline: string[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const body = operation.requestBody?.content?.['application/json']?.schema;
      if (body && body['$ref'] === undefined) inline.push(`${method} ${path} request`);
      for (const [status, response] of Object.entries(operation.responses)) {
        const schema = response.content?.['application/json']?.schema;
        if (status.startsWith('2') && schema && schema['$ref'] === undefined) inline.push(`${method} ${path} ${status}`);
      }
    }
  }
  assert.deepEqual(inline, []);
  const schemas = (document['components'] as { schemas: Record<string, unknown> }).schemas;
  assert.ok(schemas['CreatePayoutRequest'] && schemas['ProcessPayoutResponse'] && schemas['GetPayoutStatusResponse']);
});
