// GET /v2/payouts: the list query and the page it answers (CONTRACT section 5, "Payout list").
import { Type, type Static } from 'typebox';
import { PagedList, StringEnum, type WithPagingDefaults } from '../platform/schema.ts';
import { PayoutStatus, recordExample } from './schemas.ts';

export const PAGE_SIZE_MAX = 100;
export const PAGE_SIZE_DEFAULT = 10;
/** Keeps page * size far inside PostgreSQL's bigint OFFSET (and exact in a JS number). */
export const PAGE_MAX = 10_000_000;

export const SORT_FIELDS = [
  'sourceMemberPayoutId', 'payoutId', 'creationTime', 'completionTime', 'senderName',
  'senderCountry', 'beneficiaryName', 'beneficiaryCountry', 'payoutProviderId', 'payoutStatus',
] as const;
export type SortField = (typeof SORT_FIELDS)[number];

const Day = (description: string) => Type.String({ format: 'date', description: `${description} (YYYY-MM-DD, a UTC day)` });
const Text = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

export const PayoutListQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 0, maximum: PAGE_MAX, default: 0, description: 'Zero-based page number' })),
    size: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT, description: 'Payouts per page' })),
    sortField: Type.Optional(StringEnum(SORT_FIELDS, { default: 'creationTime' })),
    sortDirection: Type.Optional(Type.String({ pattern: '^([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc])$', default: 'desc', description: 'asc or desc, in any case' })),
    sourceMemberPayoutId: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'Exact match' })),
    payoutId: Type.Optional(Type.String({
      pattern: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$',
      description: 'Exact match (UUID)',
    })),
    creationTime: Type.Optional(Day('Created on this day')),
    completionTime: Type.Optional(Day('Completed on this day')),
    senderName: Type.Optional(Text('Any part of the sender\'s full name, case-insensitive')),
    senderCountry: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2, any case' })),
    beneficiaryName: Type.Optional(Text('Any part of the beneficiary\'s full name, case-insensitive')),
    beneficiaryCountry: Type.Optional(Type.String({
      pattern: '^([A-Za-z]{2}|[0-9]{1,3})$',
      description: 'ISO 3166-1 alpha-2 (any case) or ISO 3166-1 numeric (484 = MX; 76 and 076 = BR); an unknown numeric code matches nothing',
    })),
    payoutProviderId: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'Exact match' })),
    payoutStatus: Type.Optional(PayoutStatus),
  },
  { additionalProperties: false },
);
export type PayoutListQuery = WithPagingDefaults<Static<typeof PayoutListQuery>>;

export const PayoutList = PagedList('payouts', 'Payout', 'Payouts', recordExample);
