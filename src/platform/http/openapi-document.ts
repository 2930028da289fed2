// What the generated document gets beyond the route schemas: one operationId per operation (the
// names generated clients use: part of the API), the response headers every answer carries, the
// server, contact and licence. Applied by @fastify/swagger's transformObject (openapi.ts).

/** Every operation's public name, by method and path. A route missing here fails the document test. */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /healthz': 'getLiveness',
  'GET /readyz': 'getReadiness',
  'POST /oauth2/token': 'createAccessToken',
  'GET /v2/source-of-funds-codes': 'listSourceOfFundsCodes',
  'GET /v2/purpose-codes': 'listPurposeCodes',
  'GET /v2/relationship-codes': 'listRelationshipCodes',
  'POST /v2/oauth-clients': 'createOAuthClient',
  'GET /v2/oauth-clients': 'listOAuthClients',
  'POST /v2/oauth-clients/{clientId}/rotate': 'rotateOAuthClientSecret',
  'DELETE /v2/oauth-clients/{clientId}': 'revokeOAuthClient',
  'GET /v2/payout-providers': 'listPayoutProviders',
  'GET /v2/payout-providers/{payoutProviderId}': 'getPayoutProvider',
  'GET /v2/payout-limits': 'getPayoutLimits',
  'POST /v2/payouts': 'createPayout',
  'GET /v2/payouts': 'listPayouts',
  'GET /v2/payouts/{payoutId}': 'getPayout',
  'GET /v2/payouts/{payoutId}/status': 'getPayoutStatus',
  'POST /v2/payouts/{payoutId}/process': 'processPayout',
  'POST /v2/payouts/{payoutId}/cancel': 'cancelPayout',
  'POST /v2/sandbox/payouts/{payoutId}/simulate': 'simulatePayoutReport',
  'GET /v2/destination-members': 'listDestinationMembers',
  'GET /v2/destination-members/{destinationMemberId}/statement': 'getPrefundStatement',
  'GET /v2/settlement-rates': 'lockSettlementRate',
  'POST /v2/settlements': 'createSettlement',
  'GET /v2/settlements': 'listSettlements',
  'GET /v2/settlement-context': 'getSettlementContext',
  'POST /v2/settlements/{settlementId}/cancel': 'cancelSettlement',
  'GET /v2/settlements/{settlementId}': 'getSettlement',
  'POST /v2/sandbox/settlements/{settlementId}/advance': 'advanceSandboxSettlement',
  'POST /v2/sandbox/settlement-rates/{rateId}/expire': 'expireSandboxSettlementRate',
  'GET /v2/events': 'listEvents',
  'POST /v2/webhook-endpoints': 'createWebhookEndpoint',
  'GET /v2/webhook-endpoints': 'listWebhookEndpoints',
  'GET /v2/webhook-endpoints/{webhookEndpointId}': 'getWebhookEndpoint',
  'DELETE /v2/webhook-endpoints/{webhookEndpointId}': 'deleteWebhookEndpoint',
  'PATCH /v2/webhook-endpoints/{webhookEndpointId}': 'updateWebhookEndpoint',
  'POST /v2/webhook-endpoints/{webhookEndpointId}/test': 'sendWebhookEndpointTestEvent',
  'POST /v2/webhook-endpoints/{webhookEndpointId}/rotate-secret': 'rotateWebhookEndpointSecret',
  'POST /v2/webhook-endpoints/{webhookEndpointId}/enable': 'enableWebhookEndpoint',
  'POST /v2/webhook-endpoints/{webhookEndpointId}/disable': 'disableWebhookEndpoint',
  'POST /v2/sandbox/prefund': 'adjustSandboxPrefund',
};

/** Creations that answer a replay of an earlier request with its original body. */
const REPLAYING = new Set(['POST /v2/payouts', 'POST /v2/settlements']);

/** Paths exempt from the rate limit (probes: a load balancer is never refused). */
const NOT_RATE_LIMITED = new Set(['/healthz', '/readyz']);

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description: 'The request id: yours when you sent 1 to 128 printable ASCII characters, else a new UUID. Quote it when you contact us.',
    schema: { type: 'string', maxLength: 128 },
  },
  'X-RateLimit-Limit': {
    description: 'Requests allowed per minute for this client',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 1_000_000 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current minute',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 1_000_000 },
  },
  'X-RateLimit-Reset': {
    description: 'Seconds until the current minute ends',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 60 },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 86_400 },
  },
  Location: {
    description: 'The path of the created resource',
    schema: { type: 'string', format: 'uri-reference', maxLength: 2048 },
  },
  'Idempotent-Replayed': {
    description: 'Present (`true`) when this answer replays the original answer to an earlier identical request',
    schema: { type: 'string', enum: ['true'] },
  },
} as const;

type Media = Record<string, { schema?: Record<string, unknown> }>;
type Operation = {
  operationId?: string;
  requestBody?: { content?: Media };
  responses?: Record<string, { headers?: Record<string, unknown>; content?: Media }>;
};

const pascal = (operationId: string) => operationId[0]!.toUpperCase() + operationId.slice(1);

/**
 * Request and success bodies written inline in a route become named component schemas
 * (`CreatePayoutRequest`, `ProcessPayoutResponse`, …) referenced from the operation, so that code
 * generators give them stable names. The schema itself is unchanged.
 */
function nameInlineSchemas(operation: Operation, components: Record<string, unknown>): void {
  const name = operation.operationId && pascal(operation.operationId);
  if (!name) return;
  const hoist = (media: Media | undefined, schemaName: string) => {
    const json = media?.['application/json'];
    const schema = json?.schema;
    if (!json || !schema || schema['$ref'] !== undefined || (schema['type'] !== 'object' && schema['type'] !== 'array')) return;
    components[schemaName] = schema;
    json.schema = { $ref: `#/components/schemas/${schemaName}` };
  };
  hoist(operation.requestBody?.content, `${name}Request`);
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (status.startsWith('2')) hoist(response.content, `${name}Response`);
  }
}

function headersFor(key: string, path: string, status: string): Record<string, unknown> {
  const headers: Record<string, unknown> = { 'X-Request-Id': ref('X-Request-Id') };
  if (!NOT_RATE_LIMITED.has(path)) {
    for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) headers[name] = ref(name);
  }
  if (status === '429' || status === '503') headers['Retry-After'] = ref('Retry-After');
  if (status === '201') headers['Location'] = ref('Location');
  if (REPLAYING.has(key) && status === '201') headers['Idempotent-Replayed'] = ref('Idempotent-Replayed');
  return headers;
}

/** Adds operation ids, named request and response schemas, response headers, the webhooks section, servers, contact and licence to the generated document. */
export function completeDocument(
  document: Record<string, unknown>, extras: { webhooks: Record<string, unknown>; schemas: Record<string, unknown> },
): Record<string, unknown> {
  const paths = (document['paths'] ?? {}) as Record<string, Record<string, Operation>>;
  const schemas = ((document['components'] ??= {}) as Record<string, Record<string, unknown>>)['schemas'] ??= {};
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const key = `${method.toUpperCase()} ${path}`;
      const operationId = OPERATION_IDS[key];
      if (operationId) operation.operationId = operationId;
      nameInlineSchemas(operation, schemas);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = { ...headersFor(key, path, status), ...(response.headers ?? {}) };
      }
    }
  }
  document['webhooks'] = extras.webhooks;
  const components = (document['components'] ??= {}) as Record<string, unknown>;
  components['headers'] = RESPONSE_HEADERS;
  // schemas the document shows differently from the lenient ones that serialise answers (e.g. Event)
  Object.assign((components['schemas'] ??= {}) as Record<string, unknown>, extras.schemas);
  document['servers'] = [{ url: '/', description: 'The service that serves this document (sandbox or production)', 'x-internal': false }];
  const info = (document['info'] ??= {}) as Record<string, unknown>;
  info['contact'] = { name: 'API support: quote the X-Request-Id of the answer in question' };
  info['license'] = { name: 'MIT', identifier: 'MIT' };
  return document;
}
