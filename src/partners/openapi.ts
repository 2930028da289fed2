// The partner protocol as an OpenAPI 3.1 document, served at GET /partner-api/openapi.json. It
// describes both sides: the three calls a partner implements at its own base URL, and the calls
// the service answers under /partner-api. Built from the same TypeBox schemas the code checks with.
import { ErrorBody } from '../platform/http/errors.ts';
import {
  PAYOUT_BATCH_SIZE_MAX, PartnerCancelAnswer, PartnerNotFound, PartnerPayoutBatch, PartnerPayoutBatchAnswer, PartnerPayoutRequest, PartnerPayoutState, PartnerReport, PartnerReportAnswer,
  ServiceKeys,
} from './protocol.ts';
import { PartnerSettlementNotFound, PartnerSettlementNotice, PartnerSettlementReceipt, SettlementConfirmation, SettlementConfirmationAnswer } from './settlement-protocol.ts';
import { SIGNATURE_AGE_MAX_SECONDS } from './signatures.ts';

export const PARTNER_API_VERSION = '1.2.0';

const SCHEMAS = { PartnerPayoutRequest, PartnerPayoutState, PartnerPayoutBatch, PartnerPayoutBatchAnswer, PartnerNotFound, PartnerCancelAnswer, PartnerReport, PartnerReportAnswer, PartnerServiceKeys: ServiceKeys,
  PartnerSettlementNotice, PartnerSettlementReceipt, PartnerSettlementNotFound, SettlementConfirmation, SettlementConfirmationAnswer, Error: ErrorBody };

const ref = (name: keyof typeof SCHEMAS) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: keyof typeof SCHEMAS, description: string) => ({ description, content: { 'application/json': { schema: ref(name) } } });
const PARTNER_SERVER = [{ url: '{baseUrl}', description: 'The partner\'s base URL, registered with the service', variables: { baseUrl: { default: 'https://partner.example/api' } } }];
const SIGNED = [{ httpMessageSignature: [] }];
const PAYOUT_ID = { name: 'payoutId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const REFERENCE = { name: 'reference', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$' }, description: 'Percent-encoded in the path (`:` is `%3A`)' };
const UNCLEAR = 'Any other answer (a timeout, a dropped connection, a 5xx, a body that does not parse) leaves the outcome unknown: the service asks status before it does anything else.';

const DESCRIPTION = `The protocol between the service and its payout partners (docs/partner-guide.md).

Paths under \`/v1/payouts\` and \`/v1/settlements\` are implemented by the **partner** at its base URL and called by the service;
paths under \`/partner-api\` are implemented by the **service** and called by partners.
Every request either way is signed with RFC 9421 HTTP Message Signatures, Ed25519 (\`alg="ed25519"\`),
covering \`@method\`, \`@authority\`, \`@path\`, and for a body \`content-type\` and an RFC 9530
\`content-digest\` (sha-256), with \`keyid\` and \`created\` (at most ${SIGNATURE_AGE_MAX_SECONDS} seconds old).
Every call about a payout is idempotent by \`payoutId\`, every call about a settlement notice by \`reference\`. ${UNCLEAR}`;

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
    '/v1/payout-batches': {
      post: {
        tags: ['Partner implements'], operationId: 'submitPayoutBatch', servers: PARTNER_SERVER, security: SIGNED,
        summary: 'Receive several payouts to pay, in one call (since 1.2.0)',
        description: `Up to ${PAYOUT_BATCH_SIZE_MAX} payouts, each payoutId at most once; each is handled exactly as if it had been submitted alone to POST /v1/payouts (idempotent by payoutId, CANCELLED for an id cancelled before it arrived), and the answer gives each payout's state, in the order of the request. Record the whole batch before answering. The service sends a batch when several payouts to the same partner are submitted at about the same time, and a single payout through POST /v1/payouts. A partner that answers this route 404 or 405 is sent one payout per call. A batch without a clear answer leaves every payout in it in doubt: the service asks status for each.`,
        requestBody: { required: true, content: { 'application/json': { schema: ref('PartnerPayoutBatch') } } },
        responses: {
          200: json('PartnerPayoutBatchAnswer', 'One state per payout, as POST /v1/payouts would answer it'),
          400: json('Error', 'The body does not match the schema, or a payoutId appears twice: nothing was received (the service then sends each payout alone)'),
        },
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
    ...settlementPaths(),
  };
}

function settlementPaths() {
  return {
    '/v1/settlements': {
      post: {
        tags: ['Partner implements'], operationId: 'submitSettlementNotice', servers: PARTNER_SERVER, security: SIGNED,
        summary: 'Receive notice of an incoming settlement and what to credit',
        description: 'The stablecoin is on its way (txHash) to the partner\'s wallet; the partner converts it and credits creditAmount (settlementAmt * the locked rate) to the source member\'s prefund account, then sends a settlement confirmation. Idempotent by reference: a repeated notice answers the same partnerNoticeId and credits nothing twice.',
        requestBody: { required: true, content: { 'application/json': { schema: ref('PartnerSettlementNotice') } } },
        responses: { 200: json('PartnerSettlementReceipt', 'Received (now or before)') },
      },
    },
    '/v1/settlements/{reference}': {
      get: {
        tags: ['Partner implements'], operationId: 'settlementNoticeStatus', servers: PARTNER_SERVER, security: SIGNED, parameters: [REFERENCE],
        summary: 'Whether the partner received a settlement notice',
        responses: { 200: json('PartnerSettlementReceipt', 'Received'), 404: json('PartnerSettlementNotFound', 'Never received') },
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
    '/partner-api/v1/settlement-confirmations': {
      post: {
        tags: ['Service implements'], operationId: 'sendSettlementConfirmation', security: SIGNED,
        summary: 'Confirm that a settlement\'s local currency was credited',
        description: 'Recorded once per settlement, and only for exactly the notice\'s creditAmount and currency; then the service credits the prefund at the locked rate. The same confirmation again answers as the first. A confirmation of another amount is refused and kept for an operator (an incident, never silently accepted).',
        requestBody: { required: true, content: { 'application/json': { schema: ref('SettlementConfirmation') } } },
        responses: {
          200: json('SettlementConfirmationAnswer', 'Recorded (now or before)'),
          400: json('Error', 'The body does not match the schema, or names no settlement (VALIDATION_ERROR)'),
          401: json('Error', 'Missing or invalid signature, unknown or retired keyid, stale created, wrong Content-Digest (UNAUTHORIZED)'),
          404: json('Error', 'No notice with this reference or settlementId was sent to this partner (NOT_FOUND)'),
          409: json('Error', 'creditedAmount or currency is not what the notice agreed; kept for review (INVALID_STATE)'),
          422: json('Error', 'The settlement was already confirmed with another content; kept for review (IDEMPOTENCY_KEY_REUSED)'),
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
