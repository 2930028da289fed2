// A statement page as CSV (RFC 4180: a header line, CRLF line ends, fields quoted when they hold
// a comma, a quote or a line break). Amounts are exact decimal text with the currency's decimals.
// Every cell is written by the service (ids, types, fixed descriptions), none by a client.
import { stringify } from 'csv-stringify/sync';
import { formatMinor } from '../platform/money.ts';
import type { Statement } from './statement.ts';

export const CSV_COLUMNS = [
  'movementId', 'transferId', 'time', 'type', 'affects', 'amount', 'runningBalance', 'runningAvailableBalance',
  'payoutId', 'settlementId', 'description',
] as const;

export function statementCsv(statement: Statement): string {
  const ccy = statement.currency;
  const rows = statement.movements.map((m) => [
    m.movementId, m.transferId, m.time.toISOString(), m.type, m.affects, formatMinor(m.amount, ccy),
    formatMinor(m.runningBalance, ccy), formatMinor(m.runningAvailableBalance, ccy), m.payoutId ?? '', m.settlementId ?? '', m.description,
  ]);
  return stringify([[...CSV_COLUMNS], ...rows], { record_delimiter: 'windows' });
}

/** A file name made only of the (pattern-checked) member id and currency. */
export function statementFileName(statement: Statement): string {
  return `statement-${statement.destinationMemberId}-${statement.currency}.csv`;
}
