// The sandbox's payout providers, with the real local rules of each rail. Production loads its
// providers as data too; adding one is a data change (see repo.upsertProvider).
import type { FieldRule, Provider } from './model.ts';

const accountName: FieldRule = {
  name: 'beneficiary.accountName', type: 'string', required: false, maxLength: 100,
  description: 'Name on the account, when it differs from the beneficiary name', example: 'Maria Lopez Garcia',
};

export const SANDBOX_PROVIDERS: Provider[] = [
  {
    payoutProviderId: 'MX_SPEI',
    name: 'SPEI bank transfer (Mexico)',
    countryCode: 'MX',
    destinationMemberId: 'PARTNER_MX',
    currencies: ['MXN'],
    payoutMethods: ['BANK_ACCOUNT'],
    segments: ['C2C', 'B2B'],
    limits: [{ currency: 'MXN', minimumLimit: '10.00', maximumLimit: '500000.00' }],
    fees: [{ currency: 'MXN', fixedFee: '15.00', percentageFee: '0.5' }],
    fields: [
      {
        name: 'beneficiary.accountNumber', type: 'string', required: true, pattern: '^[0-9]{18}$', format: 'clabe',
        description: 'CLABE: 18 digits (bank, branch, account) ending in a weighted (3, 7, 1) check digit', example: '032180000118359719',
      },
      accountName,
    ],
  },
  {
    payoutProviderId: 'MX_CASH',
    name: 'Cash pickup at partner agents (Mexico)',
    countryCode: 'MX',
    destinationMemberId: 'PARTNER_MX',
    currencies: ['MXN'],
    payoutMethods: ['CASH_PICKUP'],
    segments: ['C2C'],
    limits: [{ currency: 'MXN', minimumLimit: '100.00', maximumLimit: '50000.00' }],
    fees: [{ currency: 'MXN', fixedFee: '35.00', percentageFee: '1.0' }],
    fields: [
      {
        name: 'beneficiary.idType', type: 'string', required: true, enum: ['INE', 'PASSPORT'],
        description: 'Identity document shown at pickup: INE voter card or passport', example: 'INE',
      },
      {
        name: 'beneficiary.idNumber', type: 'string', required: true, pattern: '^[A-Z0-9]{6,18}$',
        description: 'Number of that document, upper-case letters and digits', example: 'LOGM850101MDF',
      },
      {
        name: 'beneficiary.phone', type: 'string', required: true, pattern: '^\\+52[0-9]{10}$',
        description: 'Mexican mobile number in E.164 form; the pickup code is sent to it', example: '+525512345678',
      },
      {
        name: 'sender.dateOfBirth', type: 'string', required: true, format: 'date',
        description: "Sender's date of birth (required for cash payouts)", example: '1985-01-01',
      },
    ],
  },
  {
    payoutProviderId: 'BR_PIX',
    name: 'PIX instant payment (Brazil)',
    countryCode: 'BR',
    destinationMemberId: 'PARTNER_BR',
    currencies: ['BRL'],
    payoutMethods: ['BANK_ACCOUNT'],
    segments: ['C2C', 'B2B'],
    limits: [{ currency: 'BRL', minimumLimit: '1.00', maximumLimit: '100000.00' }],
    fees: [{ currency: 'BRL', fixedFee: '1.50', percentageFee: '0.8' }],
    fields: [
      {
        name: 'beneficiary.pixType', type: 'string', required: true, enum: ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'],
        description: 'Kind of PIX key: CPF, CNPJ, EMAIL, PHONE (+55…) or EVP (random key)', example: 'CPF',
      },
      {
        name: 'beneficiary.pixKey', type: 'string', required: true, maxLength: 100, format: 'pix-key',
        description: 'The PIX key, valid for its type (CPF and CNPJ with their check digits)', example: '52998224725',
      },
      {
        name: 'beneficiary.taxId', type: 'string', required: true, format: 'cpf-or-cnpj',
        description: "Beneficiary's CPF (11 digits) or CNPJ (14 digits), digits only", example: '52998224725',
      },
    ],
  },
  {
    payoutProviderId: 'IN_IMPS',
    name: 'IMPS bank transfer (India)',
    countryCode: 'IN',
    destinationMemberId: 'PARTNER_IN',
    currencies: ['INR'],
    payoutMethods: ['BANK_ACCOUNT'],
    segments: ['C2C', 'B2B'],
    limits: [{ currency: 'INR', minimumLimit: '100.00', maximumLimit: '500000.00' }],
    fees: [{ currency: 'INR', fixedFee: '25.00', percentageFee: '0.25' }],
    fields: [
      {
        name: 'beneficiary.branchNumber', type: 'string', required: true, format: 'ifsc',
        description: 'IFSC of the branch: 4 letters (bank), 0, 6 letters or digits (branch)', example: 'SBIN0001234',
      },
      {
        name: 'beneficiary.accountNumber', type: 'string', required: true, pattern: '^[0-9]{9,18}$',
        description: 'Account number, 9 to 18 digits', example: '123456789012',
      },
      accountName,
    ],
  },
  {
    payoutProviderId: 'NG_NIP',
    name: 'NIBSS instant payment (Nigeria)',
    countryCode: 'NG',
    destinationMemberId: 'PARTNER_NG',
    currencies: ['NGN'],
    payoutMethods: ['BANK_ACCOUNT'],
    segments: ['C2C', 'B2B'],
    limits: [{ currency: 'NGN', minimumLimit: '100.00', maximumLimit: '5000000.00' }],
    fees: [{ currency: 'NGN', fixedFee: '50.00', percentageFee: '0.5' }],
    fields: [
      {
        name: 'beneficiary.branchNumber', type: 'string', required: true, pattern: '^[0-9]{3}$',
        description: 'CBN code of the beneficiary bank, 3 digits (058 is GTBank)', example: '058',
      },
      {
        name: 'beneficiary.accountNumber', type: 'string', required: true, pattern: '^[0-9]{10}$', format: 'nuban',
        description: 'NUBAN: 10 digits whose last is a check digit over the bank code and the first 9', example: '0123456785',
      },
    ],
  },
  {
    payoutProviderId: 'PH_GCASH',
    name: 'GCash wallet (Philippines)',
    countryCode: 'PH',
    destinationMemberId: 'PARTNER_PH',
    currencies: ['PHP'],
    payoutMethods: ['WALLET'],
    segments: ['C2C'],
    limits: [{ currency: 'PHP', minimumLimit: '50.00', maximumLimit: '100000.00' }],
    fees: [{ currency: 'PHP', fixedFee: '10.00', percentageFee: '0' }],
    fields: [
      {
        name: 'beneficiary.phone', type: 'string', required: true, pattern: '^(\\+639|09)[0-9]{9}$',
        description: 'Wallet mobile number: +639 or 09 followed by 9 digits', example: '+639171234567',
      },
    ],
  },
  {
    payoutProviderId: 'KE_MPESA',
    name: 'M-Pesa wallet (Kenya)',
    countryCode: 'KE',
    destinationMemberId: 'PARTNER_KE',
    currencies: ['KES'],
    payoutMethods: ['WALLET'],
    segments: ['C2C', 'B2B'],
    limits: [{ currency: 'KES', minimumLimit: '10.00', maximumLimit: '150000.00' }],
    fees: [{ currency: 'KES', fixedFee: '30.00', percentageFee: '0.5' }],
    fields: [
      {
        name: 'beneficiary.phone', type: 'string', required: true, pattern: '^(\\+254|0)(7|1)[0-9]{8}$',
        description: 'Safaricom mobile number: +254 or 0, then 7 or 1, then 8 digits', example: '+254712345678',
      },
    ],
  },
  {
    payoutProviderId: 'GH_MOMO',
    name: 'Mobile money (Ghana)',
    countryCode: 'GH',
    destinationMemberId: 'PARTNER_GH',
    currencies: ['GHS'],
    payoutMethods: ['WALLET'],
    segments: ['C2C'],
    limits: [{ currency: 'GHS', minimumLimit: '1.00', maximumLimit: '20000.00' }],
    fees: [{ currency: 'GHS', fixedFee: '2.00', percentageFee: '1.0' }],
    fields: [
      {
        name: 'beneficiary.phone', type: 'string', required: true, pattern: '^(\\+233|0)[235][0-9]{8}$',
        description: 'Mobile money number: +233 or 0, then 2, 3 or 5, then 8 digits', example: '+233241234567',
      },
    ],
  },
];
