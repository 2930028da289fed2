import { Type } from 'typebox';
import { StringEnum } from '../platform/schema.ts';
import { FIELD_FORMATS, PAYOUT_METHODS, SEGMENTS } from './model.ts';
import { SANDBOX_PROVIDERS } from './catalogue.ts';

const example = SANDBOX_PROVIDERS[0]!;
const summaryExample = {
  payoutProviderId: example.payoutProviderId,
  name: example.name,
  countryCode: example.countryCode,
  destinationMemberId: example.destinationMemberId,
  currencies: example.currencies,
  payoutMethods: example.payoutMethods,
  segments: example.segments,
};
const detailExample = {
  ...summaryExample,
  limits: example.limits.map((l) => ({ currency: l.currency, minimumLimit: Number(l.minimumLimit), maximumLimit: Number(l.maximumLimit) })),
  fees: example.fees.map((f) => ({ currency: f.currency, fixedFee: Number(f.fixedFee), percentageFee: Number(f.percentageFee) })),
  fields: example.fields,
};

const summaryProperties = {
  payoutProviderId: Type.String({ pattern: '^[A-Z_]+$' }),
  name: Type.String(),
  countryCode: Type.String({ pattern: '^[A-Z]{2}$' }),
  destinationMemberId: Type.String({ pattern: '^[A-Z0-9_]+$' }),
  currencies: Type.Array(Type.String({ pattern: '^[A-Z]{3}$' })),
  payoutMethods: Type.Array(StringEnum(PAYOUT_METHODS)),
  segments: Type.Array(StringEnum(SEGMENTS)),
};

export const ProviderSummary = Type.Object(summaryProperties, { additionalProperties: false });

export const PayoutLimit = Type.Object(
  {
    payoutProviderId: Type.String({ description: 'Extension: the provider the limit belongs to' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    minimumLimit: Type.Number(),
    maximumLimit: Type.Number(),
  },
  { additionalProperties: false },
);

export const FieldRuleSchema = Type.Object(
  {
    name: Type.String({ description: 'Dotted path in the payout creation request' }),
    type: Type.Literal('string'),
    required: Type.Boolean(),
    pattern: Type.Optional(Type.String()),
    minLength: Type.Optional(Type.Integer()),
    maxLength: Type.Optional(Type.Integer()),
    enum: Type.Optional(Type.Array(Type.String())),
    format: Type.Optional(StringEnum(FIELD_FORMATS, { description: 'A named check beyond the pattern, e.g. a check digit' })),
    payoutMethods: Type.Optional(Type.Array(StringEnum(PAYOUT_METHODS), { description: 'The rule applies to these methods only' })),
    description: Type.String(),
    example: Type.String({ description: 'A value that satisfies the rule' }),
  },
  { additionalProperties: false },
);

export const ProviderDetails = Type.Object(
  {
    ...summaryProperties,
    limits: Type.Array(Type.Object({ currency: Type.String(), minimumLimit: Type.Number(), maximumLimit: Type.Number() }, { additionalProperties: false })),
    fees: Type.Array(
      Type.Object(
        { currency: Type.String(), fixedFee: Type.Number(), percentageFee: Type.Number({ description: 'Percent of payoutAmt' }) },
        { additionalProperties: false },
      ),
      { description: 'transferFee = fixedFee + payoutAmt * percentageFee / 100, rounded half-up to the currency minor unit' },
    ),
    fields: Type.Array(FieldRuleSchema),
  },
  { additionalProperties: false, examples: [detailExample] },
);

export const ProviderList = Type.Array(ProviderSummary, { examples: [[summaryExample]] });
export const LimitList = Type.Array(PayoutLimit, {
  examples: [[{ payoutProviderId: 'MX_SPEI', currency: 'MXN', minimumLimit: 10, maximumLimit: 500000 }]],
});

export const ProvidersQuery = Type.Object(
  { countryCode: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2; only that country' })) },
  { additionalProperties: false },
);

export const LimitsQuery = Type.Object(
  {
    countryCode: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
    payoutProviderId: Type.Optional(Type.String({ pattern: '^[A-Za-z_]*$' })),
  },
  { additionalProperties: false, description: 'At least one of countryCode and payoutProviderId; both given: both must match' },
);

export const ProviderParams = Type.Object(
  { payoutProviderId: Type.String({ minLength: 1, maxLength: 50 }) },
  { additionalProperties: false },
);
