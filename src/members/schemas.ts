import { Type, type Static } from 'typebox';
import { StringEnum } from '../platform/schema.ts';

export const MemberId = Type.String({ pattern: '^[A-Z0-9_]+$', minLength: 1, maxLength: 64 });
export const CountryCode = Type.String({ pattern: '^[A-Z]{2}$' });
export const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$' });
/** A positive amount with at most two decimals, as exact decimal text. */
export const DecimalAmount = Type.String({ pattern: '^(0|[1-9][0-9]{0,8})(\\.[0-9]{1,2})?$' });

export const NewMember = Type.Object(
  {
    memberId: MemberId,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    kind: StringEnum(['SOURCE', 'DESTINATION']),
    countryCode: CountryCode,
    currencies: Type.Array(CurrencyCode, { minItems: 1, maxItems: 20, uniqueItems: true }),
  },
  { additionalProperties: false },
);
export type NewMember = Static<typeof NewMember>;

export const CorridorChange = Type.Object(
  {
    sourceMemberId: MemberId,
    destinationMemberId: MemberId,
    destinationCcy: Type.Optional(CurrencyCode),
    active: Type.Optional(Type.Boolean()),
    maxSettlementAmt: Type.Optional(DecimalAmount),
  },
  { additionalProperties: false },
);
export type CorridorChange = Static<typeof CorridorChange>;

export const destinationMemberExample = {
  memberId: 'PARTNER_MX',
  name: 'Pagos Rápidos México',
  countryCode: 'MX',
  supportedCcyList: ['MXN'],
  prefundBalance: [{ currency: 'MXN', balance: 5000000, availableBalance: 4998985 }],
};

export const DestinationMember = Type.Object(
  {
    memberId: Type.String({ pattern: '^[A-Z0-9_]+$' }),
    name: Type.String(),
    countryCode: Type.String({ pattern: '^[A-Z]{2}$' }),
    supportedCcyList: Type.Array(Type.String({ pattern: '^[A-Z]{3}$' })),
    prefundBalance: Type.Array(
      Type.Object(
        {
          currency: Type.String({ pattern: '^[A-Z]{3}$' }),
          balance: Type.Number({ description: 'Posted prefund the caller holds at this member' }),
          availableBalance: Type.Number({ description: 'balance less what unfinished payouts have reserved' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    $id: 'DestinationMember',
    additionalProperties: false,
    examples: [destinationMemberExample],
  },
);
