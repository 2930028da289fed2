// The settlement area's records and inputs: one TypeBox schema each, for validation, serialisation
// and the OpenAPI document.
import { Type, type Static } from 'typebox';
import { PagedList, StringEnum, type WithPagingDefaults } from '../platform/schema.ts';
import { EXECUTION_INTERVALS } from './intervals.ts';

const MemberId = Type.String({ pattern: '^[A-Z0-9_]+$', maxLength: 64 });
const Currency = Type.String({ pattern: '^[A-Z]{3}$' });
export const ExecutionIntervalSchema = StringEnum(EXECUTION_INTERVALS, { description: 'When the settlement runs after its creation' });

export const rateExample = {
  rateId: '3b0f6c1e-5d7a-4e2b-9c8d-1a2b3c4d5e6f',
  sourceMemberId: 'DEMO_SOURCE_1',
  destinationMemberId: 'PARTNER_MX',
  sourceCcy: 'USD',
  destinationCcy: 'MXN',
  rate: 16.967039,
  expiryTime: '2026-11-22T10:15:00.000Z',
  forecastRates: EXECUTION_INTERVALS.map((executionInterval, hours) => ({
    executionInterval,
    rate: [16.967039, 16.968736, 16.970433, 16.972129, 16.973826, 16.975523, 16.977220][hours]!,
  })),
};

export const SettlementRate = Type.Object(
  {
    rateId: Type.String({ format: 'uuid', description: 'Use it once, in POST /v2/settlements, before expiryTime' }),
    sourceMemberId: MemberId,
    destinationMemberId: MemberId,
    sourceCcy: Currency,
    destinationCcy: Currency,
    rate: Type.Number({ description: 'Units of destinationCcy per unit of sourceCcy for IMMEDIATE, 6 decimals, after the corridor spread' }),
    expiryTime: Type.String({ format: 'date-time', description: 'The lock ends then (15 minutes after it was taken, by default)' }),
    forecastRates: Type.Array(
      Type.Object({ executionInterval: ExecutionIntervalSchema, rate: Type.Number() }, { additionalProperties: false }),
      { minItems: 7, maxItems: 7, description: 'The locked rate of each execution interval; the settlement gets the one of its own interval' },
    ),
  },
  { $id: 'SettlementRate', additionalProperties: false, examples: [rateExample] },
);

export const RateQuery = Type.Object(
  {
    destinationMemberId: MemberId,
    destinationCcy: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'Required when the destination member settles in more than one currency' })),
  },
  { additionalProperties: false },
);

export const RateParams = Type.Object({ rateId: Type.String({ maxLength: 64 }) }, { additionalProperties: false });

export const SettlementStatusSchema = StringEnum(
  ['S100_SCHEDULED', 'S200_RECEIVED', 'S300_IN_PROGRESS', 'S400_FIAT_WITHDRAWAL_IN_PROGRESS', 'S500_TERMINATED', 'S600_COMPLETED', 'S700_FAILED'],
  { description: 'S100..S400 are unfinished; S500, S600 and S700 are final' },
);

export const CreateSettlementBody = Type.Object(
  {
    destinationMemberId: Type.String({ pattern: '^[A-Z0-9_]*$', maxLength: 64 }),
    settlementAmt: Type.Number({ minimum: 0.01, maximum: 999999999.99, description: 'In your source currency; at most its minor-unit decimals' }),
    rateId: Type.String({ format: 'uuid', description: 'From GET /v2/settlement-rates: yours, unused, unexpired, for this destination member' }),
    executionInterval: ExecutionIntervalSchema,
    notes: Type.Optional(Type.String({ maxLength: 500 })),
  },
  {
    additionalProperties: false,
    examples: [{ destinationMemberId: 'PARTNER_MX', settlementAmt: 25000, rateId: rateExample.rateId, executionInterval: 'IMMEDIATE', notes: 'November top-up' }],
  },
);

export const settlementExample = {
  settlementId: '9a3c2b1d-4e5f-4a6b-8c7d-0e1f2a3b4c5d',
  settlementStatus: 'S200_RECEIVED',
  settlementAmt: 25000,
  pendingAmt: 25000,
  rate: 16.967039,
  settlementAmtReceived: null,
  sourceCcy: 'USD',
  destinationCcy: 'MXN',
  sourceMemberId: 'DEMO_SOURCE_1',
  destinationMemberId: 'PARTNER_MX',
  notes: 'November top-up',
  creationTime: '2026-11-22T10:00:00.000Z',
  completionTime: null,
  dueDate: '2026-11-22T10:00:00.000Z',
  executionInterval: 'IMMEDIATE',
  rateId: rateExample.rateId,
};

export const SettlementRecord = Type.Object(
  {
    settlementId: Type.String({ format: 'uuid' }),
    settlementStatus: SettlementStatusSchema,
    settlementAmt: Type.Number({ description: 'Source currency' }),
    pendingAmt: Type.Number({ description: 'Source currency still to be settled; 0 once completed' }),
    rate: Type.Number({ description: 'The locked rate of the settlement\'s execution interval' }),
    settlementAmtReceived: Type.Union([Type.Number(), Type.Null()], { description: 'Destination currency, settlementAmt * rate half-up; null until S600_COMPLETED' }),
    sourceCcy: Currency,
    destinationCcy: Currency,
    sourceMemberId: MemberId,
    destinationMemberId: MemberId,
    notes: Type.Union([Type.String(), Type.Null()]),
    creationTime: Type.String({ format: 'date-time' }),
    completionTime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'null unless completed' }),
    dueDate: Type.String({ format: 'date-time', description: 'When the settlement starts: creation time plus its execution interval' }),
    executionInterval: ExecutionIntervalSchema,
    rateId: Type.String({ format: 'uuid', description: 'Extension: the rate lock it used' }),
  },
  { $id: 'Settlement', additionalProperties: false, examples: [settlementExample] },
);

export const SettlementParams = Type.Object({ settlementId: Type.String({ maxLength: 64 }) }, { additionalProperties: false });

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({
    minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]([\\x20-\\x7e]{0,253}[\\x21-\\x7e])?$',
    description: 'Optional. The same key with the same request within 24 h answers the first answer again (header `Idempotent-Replayed: true`); with another request 422 IDEMPOTENCY_KEY_REUSED; while the first is running 409 REQUEST_IN_PROGRESS.',
  })),
});

export const AdvanceBody = Type.Object(
  { fail: Type.Optional(Type.Boolean({ description: 'The step fails for good: S700_FAILED' })) },
  { additionalProperties: false, examples: [{ fail: true }] },
);

export const SETTLEMENT_SORT_FIELDS = [
  'settlementAmt', 'completionTime', 'settlementAmtReceived', 'destinationMemberId', 'rate', 'settlementStatus', 'settlementId', 'creationTime', 'destinationCcy',
] as const;
export type SettlementSortField = (typeof SETTLEMENT_SORT_FIELDS)[number];

export const SettlementListQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0, description: 'Zero-based page number' })),
    size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Settlements per page' })),
    sortDirection: Type.Optional(Type.String({ pattern: '^([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc])$', default: 'DESC', description: 'ASC or DESC, in any case' })),
    sortField: Type.Optional(StringEnum(SETTLEMENT_SORT_FIELDS, { default: 'creationTime' })),
    destinationMemberId: Type.Optional(Type.String({ pattern: '^[A-Z0-9_]*$', maxLength: 64, description: 'Exact match' })),
    settlementStatus: Type.Optional(SettlementStatusSchema),
    createdAfter: Type.Optional(Type.String({ format: 'date-time', description: 'Only settlements created strictly after this instant (RFC 3339)' })),
  },
  { additionalProperties: false },
);
export type SettlementListQuery = WithPagingDefaults<Static<typeof SettlementListQuery>>;

export const SettlementList = PagedList('settlements', 'Settlement', 'Settlements', settlementExample);

export const SettlementContext = Type.Object(
  {
    sourceMemberId: MemberId,
    sourceCcy: Currency,
    corridors: Type.Array(Type.Object({
      destinationMemberId: MemberId,
      destinationCcy: Currency,
      active: Type.Boolean({ description: 'false: suspended; rates and settlements are refused (CORRIDOR_INACTIVE)' }),
      maxSettlementAmt: Type.Number({ description: 'The largest single settlement, in sourceCcy' }),
      inFlightAmt: Type.Number({ description: 'The pendingAmt of the corridor\'s unfinished settlements (S100 to S400), in sourceCcy' }),
    }, { additionalProperties: false })),
  },
  {
    additionalProperties: false,
    examples: [{
      sourceMemberId: 'DEMO_SOURCE_1', sourceCcy: 'USD',
      corridors: [
        { destinationMemberId: 'PARTNER_GH', destinationCcy: 'GHS', active: false, maxSettlementAmt: 50000, inFlightAmt: 0 },
        { destinationMemberId: 'PARTNER_MX', destinationCcy: 'MXN', active: true, maxSettlementAmt: 500000, inFlightAmt: 25000 },
      ],
    }],
  },
);

/** The `data` of settlement.status_changed: the settlement record, its previous status, eventId and sequence. */
export const SettlementStatusChangedData = Type.Object(
  {
    ...SettlementRecord.properties,
    previousStatus: Type.Union([SettlementStatusSchema, Type.Null()], { description: 'null on creation' }),
    eventId: Type.String({ format: 'uuid', description: 'The event\'s id (also the webhook-id header)' }),
    sequence: Type.Integer({ minimum: 1, maximum: 1_000_000, description: '1, 2, 3 … per settlement: keep the highest seen, ignore older ones' }),
  },
  { $id: 'SettlementStatusChangedData', additionalProperties: true },
);
