// The settlement side of the partner protocol (docs/partner-guide.md, section 3.5): the notice the
// service sends a destination member about an incoming settlement, the partner's answers, and the
// signed confirmation the partner sends once it credited the local currency. Checked by the
// settlement venues (settlements/partner-venues.ts), the intake route and the reference partner.
import { Type, type Static } from 'typebox';

const DECIMAL = '^(0|[1-9][0-9]{0,17})(\\.[0-9]{1,6})?$';
const Reference = Type.String({ pattern: '^[A-Za-z0-9._:-]{1,100}$', description: 'The service\'s reference of the notice: the idempotency key of every call about it' });
const SettlementId = Type.String({ format: 'uuid' });
const Currency = Type.String({ pattern: '^[A-Z]{3}$' });
const Amount = (description: string) => Type.String({ pattern: '^(0|[1-9][0-9]{0,17})(\\.[0-9]{1,4})?$', description: `${description}; exact decimal text, never a JSON number` });
const PartnerId = Type.String({ pattern: '^[A-Za-z0-9._:-]{1,100}$' });

/** POST {baseUrl}/v1/settlements: a settlement on its way to the partner, and what it is to credit. */
export const PartnerSettlementNotice = Type.Object(
  {
    reference: Reference,
    settlementId: SettlementId,
    sourceMemberId: Type.String({ minLength: 1, maxLength: 50, description: 'Whose prefund account with the partner is credited' }),
    asset: Type.String({ pattern: '^[A-Z0-9]{2,10}$', description: 'The stablecoin sent on chain, e.g. USDC' }),
    assetAmount: Type.String({ pattern: DECIMAL, description: 'The stablecoin amount sent; exact decimal text, never a JSON number' }),
    destinationCcy: Currency,
    creditAmount: Amount('What the partner credits: settlementAmt * rate, half-up to the currency\'s minor unit'),
    rate: Type.String({ pattern: DECIMAL, description: 'The locked rate, exact decimal text' }),
    txHash: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{1,128}$', description: 'The chain transaction, when known' })),
  },
  { $id: 'PartnerSettlementNotice', additionalProperties: false },
);
export type PartnerSettlementNotice = Static<typeof PartnerSettlementNotice>;

/** The answer to a notice and to a lookup by reference. */
export const PartnerSettlementReceipt = Type.Object(
  {
    reference: Reference,
    partnerNoticeId: Type.String({ pattern: '^[A-Za-z0-9._:-]{1,100}$', description: 'The partner\'s id of the notice; the same for every repeat' }),
  },
  { $id: 'PartnerSettlementReceipt', additionalProperties: true },
);
export type PartnerSettlementReceipt = Static<typeof PartnerSettlementReceipt>;

/** 404 from the lookup: the partner never received a notice with this reference. */
export const PartnerSettlementNotFound = Type.Object(
  { code: Type.Literal('SETTLEMENT_NOT_FOUND'), reference: Reference },
  { $id: 'PartnerSettlementNotFound', additionalProperties: true },
);

/** POST /partner-api/v1/settlement-confirmations: the partner credited the settlement. */
export const SettlementConfirmation = Type.Object(
  {
    reference: Type.Optional(Reference),
    settlementId: Type.Optional(SettlementId),
    creditedAmount: Amount('What was credited; must be the notice\'s creditAmount'),
    currency: Currency,
    creditedAt: Type.String({ format: 'date-time', maxLength: 40 }),
    partnerCreditId: PartnerId,
  },
  {
    $id: 'SettlementConfirmation',
    additionalProperties: false,
    description: 'Names the settlement by reference or settlementId (at least one; both must agree)',
    examples: [{ reference: '0b8e8c3e-4c52-4f1e-9d39-5b3a1f6f2c11:WITHDRAWAL', creditedAmount: '17123.45', currency: 'MXN', creditedAt: '2026-11-23T12:00:00Z', partnerCreditId: 'cr-000042' }],
  },
);
export type SettlementConfirmation = Static<typeof SettlementConfirmation>;

export const SettlementConfirmationAnswer = Type.Object(
  {
    settlementId: SettlementId,
    reference: Reference,
    partnerCreditId: PartnerId,
    creditedAmount: Type.String(),
    currency: Currency,
  },
  { $id: 'SettlementConfirmationAnswer', additionalProperties: false, description: 'The confirmation as recorded (a repeat answers the same)' },
);
export type SettlementConfirmationAnswer = Static<typeof SettlementConfirmationAnswer>;
