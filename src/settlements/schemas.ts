// The settlement area's records and inputs: one TypeBox schema each, for validation, serialisation
// and the OpenAPI document.
import { Type } from 'typebox';
import { StringEnum } from '../platform/schema.ts';
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
