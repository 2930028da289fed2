// The partner protocol's refusals (signature checks and report intake) and how the protocol
// answers each.
import type { RefusalTable } from '../platform/http/refusals.ts';
import type { VerifyFailure } from './signatures.ts';

export type IntakeRefusal = 'PAYOUT_NOT_FOUND' | 'REPORT_ID_REUSED';
/** Settlement confirmations (partners/settlement-intake.ts). */
export type ConfirmationRefusal = 'SETTLEMENT_UNNAMED' | 'SETTLEMENT_NOT_FOUND' | 'CREDIT_NOT_AGREED' | 'CONFIRMATION_CHANGED';
export type PartnerRefusal = IntakeRefusal | ConfirmationRefusal | VerifyFailure;

/** Operators' changes to partner connections and keys (the admin CLI words them; no HTTP operation answers them). */
export type AdminRefusal =
  | 'UNKNOWN_DESTINATION_MEMBER' | 'INVALID_BASE_URL' | 'INVALID_PUBLIC_KEY' | 'INVALID_KEY_ID' | 'KEY_ID_TAKEN' | 'KEY_NOT_FOUND' | 'KEY_ALREADY_RETIRED';

const UNSIGNED = 'The request signature is missing or not valid.';

export const PARTNER_REFUSALS = {
  SIGNATURE_MISSING: { code: 'UNAUTHORIZED', message: UNSIGNED, detail: 'Signature: the Signature and Signature-Input headers are required' },
  UNKNOWN_KEY: { code: 'UNAUTHORIZED', message: UNSIGNED, detail: 'Signature-Input: keyid is not an active partner key' },
  SIGNATURE_INVALID: { code: 'UNAUTHORIZED', message: UNSIGNED, detail: 'Signature: does not verify over the covered components' },
  SIGNATURE_EXPIRED: { code: 'UNAUTHORIZED', message: UNSIGNED, detail: 'Signature-Input: created is too old or in the future' },
  DIGEST_MISMATCH: { code: 'UNAUTHORIZED', message: UNSIGNED, detail: 'Content-Digest: missing, or not the sha-256 of the body' },
  PAYOUT_NOT_FOUND: { code: 'NOT_FOUND', message: 'No payout of this partner has this id.', detail: 'payoutId: unknown to this partner' },
  REPORT_ID_REUSED: {
    code: 'IDEMPOTENCY_KEY_REUSED', message: 'This reportId was used for another report.',
    detail: 'reportId: already used with another payoutId, status or sequence',
  },
  SETTLEMENT_UNNAMED: { code: 'VALIDATION_ERROR', message: 'The request is not valid.', detail: 'reference: reference or settlementId is required' },
  SETTLEMENT_NOT_FOUND: { code: 'NOT_FOUND', message: 'No settlement notice to this partner has this reference.', detail: 'reference: unknown to this partner' },
  CREDIT_NOT_AGREED: {
    code: 'INVALID_STATE', message: 'The credited amount is not the amount agreed; the confirmation is kept for review.',
    detail: 'creditedAmount: differs from the notice\'s creditAmount',
  },
  CONFIRMATION_CHANGED: {
    code: 'IDEMPOTENCY_KEY_REUSED', message: 'This settlement was already confirmed with another content; the confirmation is kept for review.',
    detail: 'reference: already confirmed with another creditedAmount, currency, creditedAt or partnerCreditId',
  },
} as const satisfies RefusalTable<PartnerRefusal>;
