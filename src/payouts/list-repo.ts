// SQL for the payout list. Every value travels as a bind parameter; the only text placed into the
// statement comes from the fixed tables below (sort expressions and directions).
import type { Queryable } from '../platform/database/pool.ts';
import type { PayoutStatus } from './lifecycle.ts';
import type { SortField } from './list-schemas.ts';
import { PAYOUT_COLUMNS, type PayoutRow } from './repo.ts';

/** A half-open time range [from, to). */
export interface TimeRange {
  from: Date;
  to: Date;
}

export interface PayoutListFilter {
  sourceMemberId: string;
  sourceMemberPayoutId?: string;
  payoutId?: string;
  creationTime?: TimeRange;
  completionTime?: TimeRange;
  /** Case-insensitive substrings of the full names, as the user typed them (not yet escaped). */
  senderNameContains?: string;
  beneficiaryNameContains?: string;
  /** Upper-case ISO 3166-1 alpha-2. */
  senderCountry?: string;
  beneficiaryCountry?: string;
  payoutProviderId?: string;
  payoutStatus?: PayoutStatus;
}

export interface PayoutListOrder {
  sortField: SortField;
  sortDirection: 'asc' | 'desc';
}

export interface PayoutListWindow {
  limit: number;
  offset: number;
}

// Text sorts by its lower-case form in code point order (COLLATE "C": the same on any database
// locale); '' counts as empty, like NULL, and empty values go last (NULLS LAST in both directions).
const text = (column: string) => `NULLIF(lower(${column}), '') COLLATE "C"`;

const SORT_EXPRESSIONS: Record<SortField, string> = {
  sourceMemberPayoutId: text('source_member_payout_id'),
  payoutId: 'payout_id',
  creationTime: 'creation_time',
  completionTime: 'completion_time',
  senderName: text('sender_name'),
  senderCountry: text('sender_country'),
  beneficiaryName: text('beneficiary_name'),
  beneficiaryCountry: text('beneficiary_country'),
  payoutProviderId: text('payout_provider_id'),
  payoutStatus: text('payout_status'),
};

const DIRECTIONS: Record<PayoutListOrder['sortDirection'], string> = { asc: 'ASC', desc: 'DESC' };

/** `%` and `_` in the user's text are literal characters, not LIKE wildcards. */
export const likeContains = (needle: string) => `%${needle.replace(/[\\%_]/g, '\\$&')}%`;

function whereClause(filter: PayoutListFilter, values: unknown[]): string {
  const bind = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const conditions = [`source_member_id = ${bind(filter.sourceMemberId)}`];
  if (filter.sourceMemberPayoutId !== undefined) conditions.push(`source_member_payout_id = ${bind(filter.sourceMemberPayoutId)}`);
  if (filter.payoutId !== undefined) conditions.push(`payout_id = ${bind(filter.payoutId)}::uuid`);
  if (filter.creationTime) {
    conditions.push(`creation_time >= ${bind(filter.creationTime.from)} AND creation_time < ${bind(filter.creationTime.to)}`);
  }
  if (filter.completionTime) {
    conditions.push(`completion_time >= ${bind(filter.completionTime.from)} AND completion_time < ${bind(filter.completionTime.to)}`);
  }
  // lower(column) LIKE: the form the trigram indexes of migration 0005 serve.
  if (filter.senderNameContains !== undefined) {
    conditions.push(`lower(sender_name) LIKE lower(${bind(likeContains(filter.senderNameContains))}) ESCAPE '\\'`);
  }
  if (filter.beneficiaryNameContains !== undefined) {
    conditions.push(`lower(beneficiary_name) LIKE lower(${bind(likeContains(filter.beneficiaryNameContains))}) ESCAPE '\\'`);
  }
  if (filter.senderCountry !== undefined) conditions.push(`sender_country = ${bind(filter.senderCountry)}`);
  if (filter.beneficiaryCountry !== undefined) conditions.push(`beneficiary_country = ${bind(filter.beneficiaryCountry)}`);
  if (filter.payoutProviderId !== undefined) conditions.push(`payout_provider_id = ${bind(filter.payoutProviderId)}`);
  if (filter.payoutStatus !== undefined) conditions.push(`payout_status = ${bind(filter.payoutStatus)}`);
  return conditions.join(' AND ');
}

/** ORDER BY from the whitelists only; ties by creation time, then id, in the same direction. */
export function orderByClause(order: PayoutListOrder): string {
  const expression = SORT_EXPRESSIONS[order.sortField];
  const direction = DIRECTIONS[order.sortDirection];
  if (expression === undefined || direction === undefined) throw new Error(`payout list: unsupported order ${JSON.stringify(order)}`);
  return `${expression} ${direction} NULLS LAST, creation_time ${direction}, payout_id ${direction}`;
}

/** One page of matching rows with the count of all matching rows, in one statement (one snapshot). */
export function buildListQuery(filter: PayoutListFilter, order: PayoutListOrder, window: PayoutListWindow) {
  const values: unknown[] = [];
  const where = whereClause(filter, values);
  values.push(window.limit, window.offset);
  const text = `SELECT ${PAYOUT_COLUMNS}, (SELECT count(*) FROM payouts WHERE ${where}) AS "totalRecords"
    FROM payouts WHERE ${where}
    ORDER BY ${orderByClause(order)}
    LIMIT $${values.length - 1} OFFSET $${values.length}`;
  return { text, values };
}

export function buildCountQuery(filter: PayoutListFilter) {
  const values: unknown[] = [];
  return { text: `SELECT count(*) AS "totalRecords" FROM payouts WHERE ${whereClause(filter, values)}`, values };
}

export async function listPayoutRows(
  db: Queryable, filter: PayoutListFilter, order: PayoutListOrder, window: PayoutListWindow,
): Promise<{ rows: PayoutRow[]; totalRecords: number }> {
  const page = buildListQuery(filter, order, window);
  const { rows } = await db.query<PayoutRow & { totalRecords: string }>(page.text, page.values);
  const first = rows[0];
  if (first) return { rows, totalRecords: Number(first.totalRecords) };
  if (window.offset === 0) return { rows: [], totalRecords: 0 };
  // A page past the end has no row to carry the count.
  const count = buildCountQuery(filter);
  const { rows: counted } = await db.query<{ totalRecords: string }>(count.text, count.values);
  return { rows: [], totalRecords: Number(counted[0]?.totalRecords ?? 0) };
}
