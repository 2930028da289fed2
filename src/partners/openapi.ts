// The partner protocol as an OpenAPI 3.1 document, served at GET /partner-api/openapi.json. It
// describes both sides: the three calls a partner implements at its own base URL, and the calls
// the service answers under /partner-api. Built from the same TypeBox schemas the code checks with.
import { ErrorBody } from '../platform/http/errors.ts';
import { PartnerCancelAnswer, PartnerNotFound, PartnerPayoutRequest, PartnerPayoutState, PartnerReport, PartnerReportAnswer, ServiceKeys } from './protocol.ts';
import { SIGNATURE_AGE_MAX_SECONDS } from './signatures.ts';

export const PARTNER_API_VERSION = '1.0.0';

const SCHEMAS = { PartnerPayoutRequest, PartnerPayoutState, PartnerNotFound, PartnerCancelAnswer, PartnerReport, PartnerReportAnswer, PartnerServiceKeys: ServiceKeys, Error: ErrorBody };

const ref = (name: keyof typeof SCHEMAS) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: keyof typeof SCHEMAS, description: string) => ({ description, content: { 'application/json': { schema: ref(name) } } });
const PARTNER_SERVER = [{ url: '{baseUrl}', description: 'The partner\'s base URL, registered with the service', variables: { baseUrl: { default: 'https://partner.example/api' } } }];
const SIGNED = [{ httpMessageSignature: [] }];
const PAYOUT_ID = { name: 'payoutId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const UNCLEAR = 'Any other answer (a timeout, a dropped connection, a 5xx, a body that does not parse) leaves the outcome unknown: the service asks status before it does anything else.';

const DESCRIPTION = `The protocol between the service and its payout partners (docs/partner-guide.md).

Paths under \`/v1/payouts\` are implemented by the **partner** at its base URL and called by the service;
paths under \`/partner-api\` are implemented by the **service** and called by partners.
Every request either way is signed with RFC 9421 HTTP Message Signatures, Ed25519 (\`alg="ed25519"\`),
covering \`@method\`, \`@authority\`, \`@path\`, and for a body \`content-type\` and an RFC 9530
\`content-digest\` (sha-256), with \`keyid\` and \`created\` (at most ${SIGNATURE_AGE_MAX_SECONDS} seconds old).
Every call about a payout is idempotent by \`payoutId\`. ${UNCLEAR}`;

function schemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const { $id: _id, ...rest } = schema as { $id?: string };
    out[name] = JSON.parse(JSON.stringify(rest));
  }
  return out;
}

function partnerPaths() {
  return {
    '/v1/payouts': {
      post: {
        tags: ['Partner implements'], operationId: 'submitPayout', servers: PARTNER_SERVER, security: SIGNED,
        summary: 'Receive a payout to pay',
        description: 'Idempotent by payoutId: a repeated submission answers the payout\'s status as the first did and pays nothing twice. A payoutId cancelled before it arrived answers CANCELLED and is never paid.',
        requestBody: { required: true, content: { 'application/json': { schema: ref('PartnerPayoutRequest') } } },
        responses: { 200: json('PartnerPayoutState', 'PENDING, PAID, REJECTED (with reason) or CANCELLED') },
      },
    },
    '/v1/payouts/{payoutId}': {
      get: {
        tags: ['Partner implements'], operationId: 'payoutStatus', servers: PARTNER_SERVER, security: SIGNED, parameters: [PAYOUT_ID],
        summary: 'What the partner knows of a payout',
        responses: { 200: json('PartnerPayoutState', 'The payout\'s status'), 404: json('PartnerNotFound', 'Never received (and never cancelled)') },
      },
    },
    '/v1/payouts/{payoutId}/cancel': {
      post: {
        tags: ['Partner implements'], operationId: 'cancelPayout', servers: PARTNER_SERVER, security: SIGNED, parameters: [PAYOUT_ID],
        summary: 'Withdraw a payout, or block an id never received',
        description: 'CANCELLED: it will never be paid (an id never received is remembered, and a later submission of it answers CANCELLED). ALREADY_PAID after payment; ALREADY_FINAL when rejected, failed or returned.',
        responses: { 200: json('PartnerCancelAnswer', 'The outcome') },
      },
    },
  };
}

function servicePaths() {
  return {
    '/partner-api/v1/reports': {
      post: {
        tags: ['Service implements'], operationId: 'sendReport', security: SIGNED,
        summary: 'Report what happened to a payout',
        description: 'Deduplicated by (partner, reportId): a repeat answers as the first and has no second effect. A report whose sequence is at or below one already applied for the payout is recorded, not applied (applied: false).',
        requestBody: { required: true, content: { 'application/json': { schema: ref('PartnerReport') } } },
        responses: {
          200: json('PartnerReportAnswer', 'Recorded'),
          400: json('Error', 'The body does not match the schema; detail names the field (VALIDATION_ERROR)'),
          401: json('Error', 'Missing or invalid signature, unknown or retired keyid, stale created, wrong Content-Digest (UNAUTHORIZED)'),
          404: json('Error', 'The payout is not one of this partner\'s (NOT_FOUND)'),
          422: json('Error', 'The reportId was used for another report (IDEMPOTENCY_KEY_REUSED)'),
        },
      },
    },
    '/partner-api/v1/keys': {
      get: {
        tags: ['Service implements'], operationId: 'serviceKeys', security: [],
        summary: 'The service\'s public keys (JWK set) that verify its calls to partners',
        responses: { 200: json('PartnerServiceKeys', 'The keys') },
      },
    },
  };
}

export function partnerApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'Payout Partner Protocol', version: PARTNER_API_VERSION, description: DESCRIPTION },
    tags: [
      { name: 'Partner implements', description: 'Called by the service at the partner\'s base URL' },
      { name: 'Service implements', description: 'Called by the partner' },
    ],
    paths: { ...partnerPaths(), ...servicePaths() },
    components: {
      schemas: schemas(),
      securitySchemes: {
        httpMessageSignature: {
          type: 'apiKey', in: 'header', name: 'Signature',
          description: 'RFC 9421 Signature and Signature-Input headers, Ed25519 (see the document description).',
        },
      },
    },
  };
}
