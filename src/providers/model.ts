// A payout provider as the catalogue holds it: who pays out, where, how, within which limits, at
// which fee, and which request fields its rail needs. Amounts are exact decimal text.
export const PAYOUT_METHODS = ['BANK_ACCOUNT', 'CASH_PICKUP', 'WALLET'] as const;
export type PayoutMethod = (typeof PAYOUT_METHODS)[number];
export const SEGMENTS = ['C2C', 'B2B'] as const;
export type Segment = (typeof SEGMENTS)[number];

/** Named validators beyond pattern, length and enum (see field-rules.ts). */
export const FIELD_FORMATS = ['date', 'email', 'clabe', 'cpf', 'cnpj', 'cpf-or-cnpj', 'pix-key', 'nuban', 'ifsc'] as const;
export type FieldFormat = (typeof FIELD_FORMATS)[number];

export interface FieldRule {
  /** Dotted path inside the payout creation request, e.g. beneficiary.accountNumber. */
  name: string;
  type: 'string';
  required: boolean;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  enum?: string[];
  format?: FieldFormat;
  /** When present, the rule applies to these payout methods only. */
  payoutMethods?: PayoutMethod[];
  description: string;
  /** A value that satisfies the rule. */
  example: string;
}

export interface ProviderLimit {
  currency: string;
  minimumLimit: string;
  maximumLimit: string;
}

export interface ProviderFee {
  currency: string;
  fixedFee: string;
  /** Percent of the payout amount, e.g. "0.5" for 0.5 %. */
  percentageFee: string;
}

export interface Provider {
  payoutProviderId: string;
  name: string;
  countryCode: string;
  destinationMemberId: string;
  currencies: string[];
  payoutMethods: PayoutMethod[];
  segments: Segment[];
  limits: ProviderLimit[];
  fees: ProviderFee[];
  fields: FieldRule[];
}
