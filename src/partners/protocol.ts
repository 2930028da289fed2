// The partner protocol on the wire (docs/partner-guide.md): what the service sends a partner
// (submit, status, cancel) and what a partner answers, and the status reports a partner sends the
// service. The same schemas check the answers the HTTP rail reads, validate the intake route and
// make the partner OpenAPI document (partners/openapi.ts).
import { Type, type Static } from 'typebox';
import { StringEnum } from '../platform/schema.ts';

const PayoutId = Type.String({ format: 'uuid', description: 'The service\'s payout id: the idempotency key of every call about the payout' });
const Reason = Type.String({ minLength: 1, maxLength: 200 });
const CashoutStatus = Type.String({ pattern: '^[A-Z_]{1,40}$', description: 'Cash pickup state, e.g. READY_FOR_PICKUP or PAID' });

/** POST {baseUrl}/v1/payouts: a payout for the partner to pay. */
export const PartnerPayoutRequest = Type.Object(
  {
    payoutId: PayoutId,
    payoutProviderId: Type.String({ minLength: 1, maxLength: 50 }),
    payoutMethod: StringEnum(['BANK_ACCOUNT', 'CASH_PICKUP', 'WALLET']),
    destinationCcy: Type.String({ pattern: '^[A-Z]{3}$' }),
    payoutAmt: Type.String({ pattern: '^(0|[1-9][0-9]{0,17})(\\.[0-9]{1,4})?$', description: 'Exact decimal text, never a JSON number' }),
    sender: Type.Record(Type.String(), Type.Unknown()),
    beneficiary: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'PartnerPayoutRequest', additionalProperties: false },
);
export type PartnerPayoutRequest = Static<typeof PartnerPayoutRequest>;

export const PARTNER_PAYOUT_STATUSES = ['PENDING', 'PAID', 'REJECTED', 'FAILED', 'RETURNED', 'CANCELLED'] as const;
export type PartnerPayoutStatus = (typeof PARTNER_PAYOUT_STATUSES)[number];

/** The answer to submit and to status: what the partner knows of the payout now. */
export const PartnerPayoutState = Type.Object(
  {
    payoutId: PayoutId,
    status: StringEnum(PARTNER_PAYOUT_STATUSES),
    reason: Type.Optional(Reason),
    cashoutStatus: Type.Optional(CashoutStatus),
  },
  { $id: 'PartnerPayoutState', additionalProperties: true, description: 'REJECTED and FAILED carry a reason' },
);
export type PartnerPayoutState = Static<typeof PartnerPayoutState>;

/** The most payouts one batch submission carries. */
export const PAYOUT_BATCH_SIZE_MAX = 100;

/**
 * POST {baseUrl}/v1/payout-batches: several payouts submitted in one call (protocol 1.2). Each is
 * handled exactly as if it had been submitted alone; a payoutId appears at most once.
 */
export const PartnerPayoutBatch = Type.Object(
  { payouts: Type.Array(PartnerPayoutRequest, { minItems: 1, maxItems: PAYOUT_BATCH_SIZE_MAX }) },
  { $id: 'PartnerPayoutBatch', additionalProperties: false },
);
export type PartnerPayoutBatch = Static<typeof PartnerPayoutBatch>;

/** The answer to a batch submission: each payout's state, in the order of the request. */
export const PartnerPayoutBatchAnswer = Type.Object(
  { payouts: Type.Array(PartnerPayoutState, { maxItems: PAYOUT_BATCH_SIZE_MAX }) },
  { $id: 'PartnerPayoutBatchAnswer', additionalProperties: true },
);
export type PartnerPayoutBatchAnswer = Static<typeof PartnerPayoutBatchAnswer>;

/** 404 from status: the partner never received this id (and it was never cancelled). */
export const PartnerNotFound = Type.Object(
  { code: Type.Literal('PAYOUT_NOT_FOUND'), payoutId: PayoutId },
  { $id: 'PartnerNotFound', additionalProperties: true },
);

export const CANCEL_OUTCOMES = ['CANCELLED', 'ALREADY_PAID', 'ALREADY_FINAL'] as const;

/** The answer to cancel. */
export const PartnerCancelAnswer = Type.Object(
  {
    payoutId: PayoutId,
    outcome: StringEnum(CANCEL_OUTCOMES),
    status: Type.Optional(StringEnum(['REJECTED', 'FAILED', 'RETURNED'], { description: 'ALREADY_FINAL: the final state' })),
    reason: Type.Optional(Reason),
    cashoutStatus: Type.Optional(CashoutStatus),
  },
  { $id: 'PartnerCancelAnswer', additionalProperties: true },
);
export type PartnerCancelAnswer = Static<typeof PartnerCancelAnswer>;

export const REPORT_STATUSES = ['PAID', 'REJECTED', 'FAILED', 'RETURNED', 'CASH_PICKED_UP'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** POST /partner-api/v1/reports: a partner says what happened to one of its payouts. */
export const PartnerReport = Type.Object(
  {
    reportId: Type.String({ pattern: '^[A-Za-z0-9._:-]{1,64}$', description: 'Unique per partner; a repeated id is answered as the first and has no second effect' }),
    payoutId: PayoutId,
    status: StringEnum(REPORT_STATUSES),
    sequence: Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1, description: 'Increasing per payout; a report at or below the highest applied is recorded, not applied' }),
    occurredAt: Type.String({ format: 'date-time', maxLength: 40 }),
    rejectReason: Type.Optional(Reason),
    cashoutStatus: Type.Optional(CashoutStatus),
  },
  {
    $id: 'PartnerReport',
    additionalProperties: false,
    examples: [{ reportId: 'r-000042', payoutId: '0b8e8c3e-4c52-4f1e-9d39-5b3a1f6f2c11', status: 'CASH_PICKED_UP', sequence: 2, occurredAt: '2026-11-23T12:00:00Z' }],
  },
);
export type PartnerReport = Static<typeof PartnerReport>;

export const PartnerReportAnswer = Type.Object(
  {
    reportId: Type.String(),
    payoutId: PayoutId,
    applied: Type.Boolean({ description: 'false: a report with this or a higher sequence came first; recorded, not applied' }),
  },
  { $id: 'PartnerReportAnswer', additionalProperties: false },
);
export type PartnerReportAnswer = Static<typeof PartnerReportAnswer>;

/** GET /partner-api/v1/keys: the service's public keys (JWK set), to verify its calls. */
export const ServiceKeys = Type.Object(
  {
    keys: Type.Array(Type.Object({
      kty: Type.Literal('OKP'), crv: Type.Literal('Ed25519'), kid: Type.String(), x: Type.String(), alg: Type.Literal('ed25519'),
    }, { additionalProperties: false })),
  },
  { $id: 'PartnerServiceKeys', additionalProperties: false },
);
export type ServiceKeys = Static<typeof ServiceKeys>;
