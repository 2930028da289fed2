// The payout area's records, as the service description names them.
import { Type, type Static } from 'typebox';
import { StringEnum, TypedRef } from '../platform/schema.ts';
import { codesOf, PURPOSE_CODES, RELATIONSHIP_CODES, SOURCE_OF_FUNDS_CODES } from '../codes/lists.ts';
import { PAYOUT_METHODS, SEGMENTS } from '../providers/model.ts';
import { CANCELLATION_STATUSES, PAYOUT_STATUSES } from './lifecycle.ts';

const Str = (options: Record<string, unknown> = {}) => Type.String({ maxLength: 200, ...options });
const Date_ = Type.String({ format: 'date' });
const Nationality = Str({ pattern: '^[A-Za-z ]{2,60}$' });

export const AddressInfo = Type.Object(
  {
    address2: Type.Optional(Str()), externalNumber: Type.Optional(Str()), internalNumber: Type.Optional(Str()),
    city: Type.Optional(Str()), suburb: Type.Optional(Str()), county: Type.Optional(Str()), state: Type.Optional(Str()),
    postalCode: Type.Optional(Str()), street: Type.Optional(Str()), country: Type.Optional(Str()),
  },
  { $id: 'AddressInfo', additionalProperties: false },
);

const senderProperties = {
  firstName: Str({ minLength: 1 }),
  middleName: Type.Optional(Str()),
  lastName: Str(),
  lastName2: Type.Optional(Str()),
  gender: Type.Optional(StringEnum(['M', 'F'])),
  dateOfBirth: Type.Optional(Date_),
  countryOfBirth: Type.Optional(Str({ pattern: '^[A-Z]{3}$' })),
  idNumber: Type.Optional(Str()),
  idType: Type.Optional(Str()),
  passportNumber: Type.Optional(Str()),
  accountNumber: Type.Optional(Str()),
  nationality: Type.Optional(Nationality),
  occupation: Type.Optional(Str()),
  phone: Type.Optional(Str()),
  email: Type.Optional(Str({ format: 'email' })),
  address: Type.Optional(Type.Ref('AddressInfo')),
  countryCode: Type.Optional(Str({ pattern: '^[A-Z]{2}$' })),
  companyName: Type.Optional(Str()),
  companyTradingName: Type.Optional(Str()),
  companyRegistrationNumber: Type.Optional(Str()),
  companyRegistrationCountry: Type.Optional(Str()),
};

const beneficiaryProperties = {
  firstName: Str({ minLength: 1 }),
  middleName: Type.Optional(Str({ minLength: 1 })),
  lastName: Str(),
  lastName2: Type.Optional(Str()),
  gender: Type.Optional(StringEnum(['M', 'F'])),
  dateOfBirth: Type.Optional(Date_),
  countryOfBirth: Type.Optional(Str()),
  stateOfBirth: Type.Optional(Str()),
  phone: Type.Optional(Str()),
  mailAddress: Type.Optional(Str()),
  countryCode: Type.Optional(Str({ pattern: '^[A-Z]{2}$' })),
  email: Type.Optional(Str({ format: 'email' })),
  address: Type.Optional(Type.Ref('AddressInfo')),
  accountName: Type.Optional(Str()),
  accountNumber: Type.Optional(Str()),
  accountType: Type.Optional(Str()),
  transferNumber: Type.Optional(Str()),
  idNumber: Type.Optional(Str()),
  idType: Type.Optional(Str()),
  idIssueState: Type.Optional(Str()),
  idIssueCountry: Type.Optional(Str()),
  pixType: Type.Optional(Str()),
  pixKey: Type.Optional(Str({ minLength: 1, maxLength: 100 })),
  taxId: Type.Optional(Str({ minLength: 1, maxLength: 100 })),
  idExpiryDate: Type.Optional(Date_),
  idIssueDate: Type.Optional(Date_),
  passportNumber: Type.Optional(Str()),
  nationality: Type.Optional(Nationality),
  type: Type.Optional(Str()),
  residencyType: Type.Optional(Str()),
  occupation: Type.Optional(Str()),
  companyName: Type.Optional(Str()),
  branchNumber: Type.Optional(Str({ minLength: 1 })),
};

const EntityType = StringEnum(['INDIVIDUAL', 'BUSINESS'], { description: 'BUSINESS when companyName is given' });

export const Sender = Type.Object(senderProperties, { $id: 'Sender', additionalProperties: false });
export const Beneficiary = Type.Object(beneficiaryProperties, { $id: 'Beneficiary', additionalProperties: false });
const StoredSender = Type.Object({ ...senderProperties, entityType: EntityType }, { additionalProperties: false });
const StoredBeneficiary = Type.Object({ ...beneficiaryProperties, entityType: EntityType }, { additionalProperties: false });

export const ComplianceInfo = Type.Object(
  {
    sourceOfFunds: Type.Optional(StringEnum(codesOf(SOURCE_OF_FUNDS_CODES))),
    purpose: Type.Optional(StringEnum(codesOf(PURPOSE_CODES))),
    other: Type.Optional(Str({ maxLength: 500 })),
    relationship: Type.Optional(StringEnum(codesOf(RELATIONSHIP_CODES))),
  },
  { $id: 'ComplianceInfo', additionalProperties: false },
);

export const PayoutStatus = StringEnum(PAYOUT_STATUSES);
export const CancellationStatus = StringEnum(CANCELLATION_STATUSES);
const Amount = Type.Number({ exclusiveMinimum: 0, maximum: 1e12, description: 'In destinationCcy; at most its ISO 4217 minor digits' });

export const createExample = {
  sourceMemberPayoutId: 'INV-2026-0001',
  payoutProviderId: 'MX_SPEI',
  payoutMethod: 'BANK_ACCOUNT',
  segment: 'C2C',
  destinationCcy: 'MXN',
  payoutAmt: 1500.5,
  sender: { firstName: 'John', lastName: 'Smith', countryCode: 'US' },
  beneficiary: { firstName: 'Maria', lastName: 'Lopez', countryCode: 'MX', accountNumber: '032180000118359719' },
  complianceInfo: { sourceOfFunds: 'SALARY', purpose: 'FAMILY_MAINTENANCE', relationship: 'FAMILY' },
};

export const CreatePayoutBody = Type.Object(
  {
    // typed as the plain records the use case reads; the named schemas check them
    sender: TypedRef<Record<string, unknown>>('Sender'),
    beneficiary: TypedRef<Record<string, unknown>>('Beneficiary'),
    complianceInfo: Type.Optional(TypedRef<Record<string, unknown>>('ComplianceInfo')),
    sourceMemberPayoutId: Type.String({ minLength: 1, maxLength: 50, description: 'Your own id; unique per member; makes creation idempotent' }),
    destinationCcy: Type.String({ pattern: '^[A-Z]{3}$' }),
    payoutAmt: Amount,
    payoutProviderId: Type.String({ pattern: '^[A-Za-z0-9-_ ]*$', maxLength: 50 }),
    payoutMethod: Type.Optional(StringEnum(PAYOUT_METHODS, { description: "Default: the provider's only method" })),
    segment: Type.Optional(StringEnum(SEGMENTS, { description: 'Default: C2C' })),
  },
  { additionalProperties: false, examples: [createExample] },
);

const Links = Type.Object(
  { process: Type.String(), status: Type.String(), details: Type.String() },
  { additionalProperties: false },
);

const exampleId = '5b0e6f1c-9a4e-4b7e-8d53-2f0c1a9e7d21';
export const createResponseExample = {
  payoutId: exampleId,
  sourceMemberPayoutId: 'INV-2026-0001',
  payoutStatus: 'ACCP',
  destinationCcy: 'MXN',
  payoutAmt: 1500.5,
  transferFee: 22.5,
  expiryTime: '2026-11-22T10:00:00.000Z',
  beneficiaryName: 'Maria Lopez',
  links: { process: `/v2/payouts/${exampleId}/process`, status: `/v2/payouts/${exampleId}/status`, details: `/v2/payouts/${exampleId}` },
};

export const CreatePayoutResponse = Type.Object(
  {
    payoutId: Type.String({ format: 'uuid' }),
    sourceMemberPayoutId: Type.String(),
    payoutStatus: PayoutStatus,
    destinationCcy: Type.String(),
    payoutAmt: Type.Number(),
    transferFee: Type.Number(),
    expiryTime: Type.String({ format: 'date-time' }),
    beneficiaryName: Type.String(),
    links: Links,
  },
  { additionalProperties: false, examples: [createResponseExample] },
);
export type CreatePayoutResponse = Static<typeof CreatePayoutResponse>;

const Time = Type.Optional(Type.String({ format: 'date-time' }));

export const recordExample = {
  payoutId: exampleId,
  sourceMemberPayoutId: 'INV-2026-0001',
  payoutStatus: 'PRCD',
  destinationCcy: 'MXN',
  payoutAmt: 1500.5,
  transferFee: 22.5,
  expiryTime: '2026-11-22T10:00:00.000Z',
  payoutProviderId: 'MX_SPEI',
  segment: 'C2C',
  payoutMethod: 'BANK_ACCOUNT',
  sender: { ...createExample.sender, entityType: 'INDIVIDUAL' },
  beneficiary: { ...createExample.beneficiary, entityType: 'INDIVIDUAL' },
  complianceInfo: createExample.complianceInfo,
  creationTime: '2026-11-21T10:00:00.000Z',
  initiateTime: '2026-11-21T10:00:05.000Z',
  completionTime: '2026-11-21T10:00:05.120Z',
};

export const PayoutRecord = Type.Object(
  {
    payoutId: Type.String({ format: 'uuid' }),
    sourceMemberPayoutId: Type.String(),
    payoutStatus: PayoutStatus,
    payoutCancellationStatus: Type.Optional(CancellationStatus),
    cashoutStatus: Type.Optional(Type.String()),
    rejectReason: Type.Optional(Type.String()),
    destinationCcy: Type.String(),
    payoutAmt: Type.Number(),
    transferFee: Type.Number(),
    expiryTime: Type.String({ format: 'date-time' }),
    payoutProviderId: Type.String(),
    segment: StringEnum(SEGMENTS),
    payoutMethod: StringEnum(PAYOUT_METHODS),
    sender: StoredSender,
    beneficiary: StoredBeneficiary,
    complianceInfo: Type.Optional(Type.Ref('ComplianceInfo')),
    creationTime: Type.String({ format: 'date-time' }),
    initiateTime: Time,
    completionTime: Time,
    rejectionTime: Time,
    cancellationTime: Time,
  },
  { $id: 'Payout', additionalProperties: false, examples: [recordExample] },
);

export const PayoutStatusResponse = Type.Object(
  {
    payoutStatus: PayoutStatus,
    payoutCancellationStatus: Type.Optional(CancellationStatus),
    cashoutStatus: Type.Optional(Type.String()),
    rejectReason: Type.Optional(Type.String()),
  },
  { additionalProperties: false, examples: [{ payoutStatus: 'PNDG', cashoutStatus: 'READY_FOR_PICKUP' }] },
);

export const ProcessResponse = Type.Object(
  {
    payoutStatus: PayoutStatus,
    cashoutStatus: Type.Optional(Type.String()),
    rejectReason: Type.Optional(Type.String()),
  },
  {
    additionalProperties: false,
    examples: [{ payoutStatus: 'PRCD', cashoutStatus: 'PAID' }, { payoutStatus: 'PNDG', cashoutStatus: 'READY_FOR_PICKUP' }],
    'x-examples': {
      processed: { summary: 'A bank or wallet partner paid at once', value: { payoutStatus: 'PRCD', cashoutStatus: 'PAID' } },
      cashPickupPending: { summary: 'A cash pickup, waiting for the beneficiary', value: { payoutStatus: 'PNDG', cashoutStatus: 'READY_FOR_PICKUP' } },
    },
  },
);

export const CancelBody = Type.Object(
  { cancellationReason: Type.String({ minLength: 1, maxLength: 50 }) },
  { additionalProperties: false, examples: [{ cancellationReason: 'Customer request' }] },
);

export const CancelResponse = Type.Object(
  { payoutStatus: PayoutStatus, payoutCancellationStatus: CancellationStatus },
  { additionalProperties: false, examples: [{ payoutStatus: 'ACCP', payoutCancellationStatus: 'PNDG' }] },
);

export const PayoutParams = Type.Object({ payoutId: Type.String({ maxLength: 64 }) }, { additionalProperties: false });

export const SimulateBody = Type.Object(
  {
    payoutStatus: StringEnum(['PRCD', 'RJCT', 'FAIL', 'RVSD', 'EXPD']),
    rejectReason: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    cashoutStatus: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  },
  { additionalProperties: false, examples: [{ payoutStatus: 'PRCD', cashoutStatus: 'PAID' }] },
);
