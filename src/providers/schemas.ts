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

/** Exact decimal text of an amount, e.g. "500000.00" (the currency's minor unit is checked after). */
const AmountText = Type.String({ pattern: '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,6})?$', description: 'Exact decimal text, e.g. "15.00"' });
/** A percentage as exact decimal text, e.g. "0.5" for 0.5 % (at most 100, checked after). */
const PercentText = Type.String({ pattern: '^(0|[1-9][0-9]{0,2})(\\.[0-9]{1,4})?$', description: 'Percent as exact decimal text, e.g. "0.5"' });

/** Items any provider array may hold: a provider is a page of data, not a database. */
export const PROVIDER_ITEMS_MAX = 50;

/**
 * A provider as an operator writes it (npm run admin -- providers set --file): the record of
 * GET /v2/payout-providers/{id} with its amounts as exact decimal text. Not served over HTTP.
 */
export const ProviderDocument = Type.Object(
  {
    ...summaryProperties,
    payoutProviderId: Type.String({ pattern: '^[A-Z_]+$', minLength: 1, maxLength: 50 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    destinationMemberId: Type.String({ pattern: '^[A-Z0-9_]+$', minLength: 1, maxLength: 64 }),
    currencies: Type.Array(Type.String({ pattern: '^[A-Z]{3}$' }), { minItems: 1, maxItems: 20, uniqueItems: true }),
    payoutMethods: Type.Array(StringEnum(PAYOUT_METHODS), { minItems: 1, uniqueItems: true }),
    segments: Type.Array(StringEnum(SEGMENTS), { minItems: 1, uniqueItems: true }),
    limits: Type.Array(
      Type.Object({ currency: Type.String(), minimumLimit: AmountText, maximumLimit: AmountText }, { additionalProperties: false }),
      { minItems: 1, maxItems: PROVIDER_ITEMS_MAX },
    ),
    fees: Type.Array(
      Type.Object({ currency: Type.String(), fixedFee: AmountText, percentageFee: PercentText }, { additionalProperties: false }),
      { minItems: 1, maxItems: PROVIDER_ITEMS_MAX },
    ),
    fields: Type.Array(FieldRuleSchema, { maxItems: PROVIDER_ITEMS_MAX }),
  },
  { additionalProperties: false },
);
