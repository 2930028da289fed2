// Use case: one page of the caller's payouts, filtered and sorted (CONTRACT section 5, "Payout list").
// The query arrives already checked by the route schema; the checks here keep the use case safe on
// its own (a bad value is a VALIDATION_ERROR value, never a database error).
import { isUuid } from '../platform/ids.ts';
import type { Queryable } from '../platform/database/pool.ts';
import { PAYOUT_STATUSES } from './lifecycle.ts';
import { listPayoutRows, type PayoutListFilter, type PayoutListOrder, type TimeRange } from './list-repo.ts';
import { PAGE_MAX, PAGE_SIZE_MAX, SORT_FIELDS, type PayoutListQuery } from './list-schemas.ts';
import { payoutRecord } from './views.ts';
import { ok, refuse, type Result } from '../platform/result.ts';

const DAY_MS = 86_400_000;
const ALPHA_2 = /^[A-Za-z]{2}$/;
const NUMERIC = /^[0-9]{1,3}$/;

// ISO 3166-1 numeric code of every alpha-2 code (from the iso-codes data), as alpha-2 + 3 digits.
const ISO_3166_NUMERIC =
  'AD020 AE784 AF004 AG028 AI660 AL008 AM051 AO024 AQ010 AR032 AS016 AT040 AU036 AW533 AX248 AZ031 BA070 BB052 BD050 BE056 ' +
  'BF854 BG100 BH048 BI108 BJ204 BL652 BM060 BN096 BO068 BQ535 BR076 BS044 BT064 BV074 BW072 BY112 BZ084 CA124 CC166 CD180 ' +
  'CF140 CG178 CH756 CI384 CK184 CL152 CM120 CN156 CO170 CR188 CU192 CV132 CW531 CX162 CY196 CZ203 DE276 DJ262 DK208 DM212 ' +
  'DO214 DZ012 EC218 EE233 EG818 EH732 ER232 ES724 ET231 FI246 FJ242 FK238 FM583 FO234 FR250 GA266 GB826 GD308 GE268 GF254 ' +
  'GG831 GH288 GI292 GL304 GM270 GN324 GP312 GQ226 GR300 GS239 GT320 GU316 GW624 GY328 HK344 HM334 HN340 HR191 HT332 HU348 ' +
  'ID360 IE372 IL376 IM833 IN356 IO086 IQ368 IR364 IS352 IT380 JE832 JM388 JO400 JP392 KE404 KG417 KH116 KI296 KM174 KN659 ' +
  'KP408 KR410 KW414 KY136 KZ398 LA418 LB422 LC662 LI438 LK144 LR430 LS426 LT440 LU442 LV428 LY434 MA504 MC492 MD498 ME499 ' +
  'MF663 MG450 MH584 MK807 ML466 MM104 MN496 MO446 MP580 MQ474 MR478 MS500 MT470 MU480 MV462 MW454 MX484 MY458 MZ508 NA516 ' +
  'NC540 NE562 NF574 NG566 NI558 NL528 NO578 NP524 NR520 NU570 NZ554 OM512 PA591 PE604 PF258 PG598 PH608 PK586 PL616 PM666 ' +
  'PN612 PR630 PS275 PT620 PW585 PY600 QA634 RE638 RO642 RS688 RU643 RW646 SA682 SB090 SC690 SD729 SE752 SG702 SH654 SI705 ' +
  'SJ744 SK703 SL694 SM674 SN686 SO706 SR740 SS728 ST678 SV222 SX534 SY760 SZ748 TC796 TD148 TF260 TG768 TH764 TJ762 TK772 ' +
  'TL626 TM795 TN788 TO776 TR792 TT780 TV798 TW158 TZ834 UA804 UG800 UM581 US840 UY858 UZ860 VA336 VC670 VE862 VG092 VI850 ' +
  'VN704 VU548 WF876 WS882 YE887 YT175 ZA710 ZM894 ZW716';

const ALPHA_2_OF_NUMERIC: ReadonlyMap<string, string> = new Map(
  ISO_3166_NUMERIC.split(' ').map((entry) => [entry.slice(2), entry.slice(0, 2)]),
);

/** `484` → `MX`, `76` → `BR`, `mx` → `MX`; null for an unknown numeric code; undefined for malformed text. */
export function countryOf(code: string): string | null | undefined {
  if (ALPHA_2.test(code)) return code.toUpperCase();
  if (NUMERIC.test(code)) return ALPHA_2_OF_NUMERIC.get(code.padStart(3, '0')) ?? null;
  return undefined;
}

/** The UTC day YYYY-MM-DD as [00:00Z, next day 00:00Z); undefined for anything else. */
export function utcDay(day: string): TimeRange | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const from = new Date(`${day}T00:00:00.000Z`);
  if (Number.isNaN(from.getTime()) || from.toISOString().slice(0, 10) !== day) return undefined;
  return { from, to: new Date(from.getTime() + DAY_MS) };
}

export type PayoutListBody = {
  payouts: Array<ReturnType<typeof payoutRecord>>;
  page: number;
  size: number;
  totalPages: number;
  totalRecords: number;
};

export type PayoutListResult = Result<PayoutListBody, 'VALIDATION_ERROR'>;

type Criteria = { filter: PayoutListFilter; order: PayoutListOrder; matchesNothing: boolean };

const invalid = (detail: string) => refuse('VALIDATION_ERROR', detail);

/** The query as SQL-ready criteria, or the first parameter that is not valid. */
function criteriaOf(memberId: string, query: PayoutListQuery): Criteria | PayoutListResult {
  const direction = query.sortDirection.toLowerCase();
  if (direction !== 'asc' && direction !== 'desc') return invalid('sortDirection: must be asc or desc');
  if (!SORT_FIELDS.includes(query.sortField)) return invalid(`sortField: must be one of ${SORT_FIELDS.join(', ')}`);
  if (query.payoutId !== undefined && !isUuid(query.payoutId)) return invalid('payoutId: must be a UUID');
  if (query.payoutStatus !== undefined && !PAYOUT_STATUSES.includes(query.payoutStatus)) {
    return invalid(`payoutStatus: must be one of ${PAYOUT_STATUSES.join(', ')}`);
  }
  const creationTime = query.creationTime === undefined ? undefined : utcDay(query.creationTime);
  if (query.creationTime !== undefined && !creationTime) return invalid('creationTime: must be a date (YYYY-MM-DD)');
  const completionTime = query.completionTime === undefined ? undefined : utcDay(query.completionTime);
  if (query.completionTime !== undefined && !completionTime) return invalid('completionTime: must be a date (YYYY-MM-DD)');
  if (query.senderCountry !== undefined && !ALPHA_2.test(query.senderCountry)) {
    return invalid('senderCountry: must be an ISO 3166-1 alpha-2 code');
  }
  const beneficiaryCountry = query.beneficiaryCountry === undefined ? undefined : countryOf(query.beneficiaryCountry);
  if (query.beneficiaryCountry !== undefined && beneficiaryCountry === undefined) {
    return invalid('beneficiaryCountry: must be an ISO 3166-1 alpha-2 or numeric code');
  }
  const filter: PayoutListFilter = {
    sourceMemberId: memberId,
    sourceMemberPayoutId: query.sourceMemberPayoutId,
    payoutId: query.payoutId,
    creationTime,
    completionTime,
    senderNameContains: query.senderName,
    beneficiaryNameContains: query.beneficiaryName,
    senderCountry: query.senderCountry?.toUpperCase(),
    beneficiaryCountry: beneficiaryCountry ?? undefined,
    payoutProviderId: query.payoutProviderId,
    payoutStatus: query.payoutStatus,
  };
  return { filter, order: { sortField: query.sortField, sortDirection: direction }, matchesNothing: beneficiaryCountry === null };
}

export async function listPayouts(db: Queryable, memberId: string, query: PayoutListQuery): Promise<PayoutListResult> {
  const { page, size } = query;
  if (!Number.isInteger(page) || page < 0 || page > PAGE_MAX) return invalid(`page: must be an integer from 0 to ${PAGE_MAX}`);
  if (!Number.isInteger(size) || size < 1 || size > PAGE_SIZE_MAX) return invalid(`size: must be an integer from 1 to ${PAGE_SIZE_MAX}`);
  const criteria = criteriaOf(memberId, query);
  if ('ok' in criteria) return criteria;

  const { rows, totalRecords } = criteria.matchesNothing
    ? { rows: [], totalRecords: 0 }
    : await listPayoutRows(db, criteria.filter, criteria.order, { limit: size, offset: page * size });
  if (rows.length > size || rows.length > totalRecords) throw new Error('payout list: the page holds more rows than asked for or counted');
  return ok({ payouts: rows.map(payoutRecord), page, size, totalPages: Math.ceil(totalRecords / size), totalRecords });
}
