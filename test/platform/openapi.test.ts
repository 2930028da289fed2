// /openapi.json is OpenAPI 3.1, generated from the routes: every route with its scope, its error
// responses and examples; /docs renders it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { json } from '../support/http.ts';

type Operation = { security?: Array<Record<string, string[]>>; responses: Record<string, { content?: Record<string, { schema?: unknown; example?: unknown; examples?: unknown }> }> };
type Document = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; flows: { clientCredentials: { tokenUrl: string; scopes: Record<string, string> } } }> };
};

// Every route this service has, with the scope it needs (null: public).
const ROUTES: Array<[string, string, string | null]> = [
  ['post', '/oauth2/token', null],
  ['get', '/healthz', null],
  ['get', '/readyz', null],
  ['get', '/v2/source-of-funds-codes', 'payouts'],
  ['get', '/v2/purpose-codes', 'payouts'],
  ['get', '/v2/relationship-codes', 'payouts'],
  ['post', '/v2/oauth-clients', 'member'],
  ['get', '/v2/oauth-clients', 'member'],
  ['post', '/v2/oauth-clients/{clientId}/rotate', 'member'],
  ['delete', '/v2/oauth-clients/{clientId}', 'member'],
  ['get', '/v2/payout-providers', 'payouts'],
  ['get', '/v2/payout-providers/{payoutProviderId}', 'payouts'],
  ['get', '/v2/payout-limits', 'payouts'],
  ['get', '/v2/destination-members', 'member'],
  ['get', '/v2/destination-members/{destinationMemberId}/statement', 'member'],
  ['post', '/v2/sandbox/prefund', 'member'],
  ['post', '/v2/payouts', 'payouts'],
  ['get', '/v2/payouts', 'payouts'],
  ['get', '/v2/payouts/{payoutId}', 'payouts'],
  ['get', '/v2/payouts/{payoutId}/status', 'payouts'],
  ['post', '/v2/payouts/{payoutId}/process', 'payouts'],
  ['post', '/v2/payouts/{payoutId}/cancel', 'payouts'],
  ['post', '/v2/sandbox/payouts/{payoutId}/simulate', 'payouts'],
  ['get', '/v2/settlement-rates', 'settlements'],
  ['post', '/v2/sandbox/settlement-rates/{rateId}/expire', 'settlements'],
  ['post', '/v2/settlements', 'settlements'],
  ['post', '/v2/sandbox/settlements/{settlementId}/advance', 'settlements'],
  ['get', '/v2/settlements/{settlementId}', 'settlements'],
  ['get', '/v2/settlements', 'settlements'],
  ['get', '/v2/settlement-context', 'settlements'],
  ['post', '/v2/settlements/{settlementId}/cancel', 'settlements'],
  ['get', '/v2/events', 'member'],
  ['post', '/v2/webhook-endpoints', 'member'],
  ['get', '/v2/webhook-endpoints', 'member'],
  ['get', '/v2/webhook-endpoints/{webhookEndpointId}', 'member'],
  ['delete', '/v2/webhook-endpoints/{webhookEndpointId}', 'member'],
  ['patch', '/v2/webhook-endpoints/{webhookEndpointId}', 'member'],
  ['post', '/v2/webhook-endpoints/{webhookEndpointId}/test', 'member'],
  ['post', '/v2/webhook-endpoints/{webhookEndpointId}/rotate-secret', 'member'],
  ['post', '/v2/webhook-endpoints/{webhookEndpointId}/enable', 'member'],
  ['post', '/v2/webhook-endpoints/{webhookEndpointId}/disable', 'member'],
];

let service: TestService;
let doc: Document;
before(async () => {
  service = await startTestService();
  doc = await json<Document>(await fetch(`${service.url}/openapi.json`));
});
after(async () => {
  await service.stop();
});

test('the document is OpenAPI 3.1 with version 1.2.0 and the OAuth2 client credentials scheme', () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.2.0');
  const scheme = doc.components.securitySchemes['oauth2']!;
  assert.equal(scheme.type, 'oauth2');
  assert.equal(scheme.flows.clientCredentials.tokenUrl, '/oauth2/token');
  assert.deepEqual(Object.keys(scheme.flows.clientCredentials.scopes).sort(), ['member', 'payouts', 'settlements']);
});

test('every route is documented with its scope, and no undocumented route is served', () => {
  const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)).sort();
  assert.deepEqual(documented, ROUTES.map(([m, p]) => `${m} ${p}`).sort());
  for (const [method, path, scope] of ROUTES) {
    const operation = doc.paths[path]![method]!;
    if (path === '/oauth2/token') assert.deepEqual(operation.security, [{ clientBasic: [] }], 'the token endpoint takes client authentication');
    else if (scope === null) assert.equal(operation.security, undefined, `${method} ${path}`);
    else assert.deepEqual(operation.security, [{ oauth2: [scope] }], `${method} ${path}`);
  }
});

test('the router serves every documented route', () => {
  for (const [method, path] of ROUTES) {
    const url = path.replace(/\{(\w+)\}/g, ':$1');
    assert.ok(service.app.hasRoute({ method: method.toUpperCase() as 'GET', url }), `${method} ${url} is not served`);
  }
});

test('secured routes document 401, 403, 429 and 500 with the Error schema', () => {
  for (const [method, path, scope] of ROUTES) {
    if (scope === null) continue;
    const responses = doc.paths[path]![method]!.responses;
    for (const status of ['401', '403', '429', '500']) {
      const schema = responses[status]?.content?.['application/json']?.schema;
      assert.deepEqual(schema, { $ref: '#/components/schemas/Error' }, `${method} ${path} ${status}`);
    }
  }
});

test('every success response has an example', () => {
  for (const [method, path] of ROUTES) {
    const responses = doc.paths[path]![method]!.responses;
    const success = Object.keys(responses).find((s) => s.startsWith('2'))!;
    if (success === '204') continue;
    const media = responses[success]!.content!['application/json']!;
    let schema = media.schema as { examples?: unknown[]; $ref?: string };
    if (schema.$ref) schema = (doc.components as unknown as { schemas: Record<string, typeof schema> }).schemas[schema.$ref.split('/').pop()!]!;
    assert.ok(media.example !== undefined || media.examples !== undefined || (schema.examples?.length ?? 0) > 0, `${method} ${path}`);
  }
});

test('/docs renders the reference page', async () => {
  const response = await fetch(`${service.url}/docs`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /text\/html/);
  assert.match(await response.text(), /swagger-ui/i);
});

test('/docs keeps a strict policy but no upgrade-insecure-requests, so it renders over plain http on any host', async () => {
  for (const path of ['/docs', '/docs/static/index.html', '/docs/static/swagger-initializer.js']) {
    const response = await fetch(`${service.url}${path}`);
    await response.arrayBuffer();
    const policy = response.headers.get('content-security-policy') ?? '';
    assert.doesNotMatch(policy, /upgrade-insecure-requests/, path);
    assert.match(policy, /default-src 'self'/, path);
    assert.match(policy, /object-src 'none'/, path);
    assert.match(policy, /script-src-attr 'none'/, path);
  }
});
