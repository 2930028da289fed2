// An account's statement: its movements in the order the ledger numbered them, each with the
// balances after it. Read under the account's statement lock (movements-repo.ts), so a page is a
// complete prefix of the account's history and its running balances end exactly at the balances
// the account has at that moment.
import assert from 'node:assert/strict';
import { type Db, type Queryable } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { accountKey, type AccountSpec } from './accounts.ts';
import * as movements from './movements-repo.ts';
import { findAccountIds } from './repo.ts';
import { balances, type Balance } from './service.ts';

/** A place in a statement, with the balances on either side of the movement there. */
export interface StatementPosition {
  seq: string;
  balanceBefore: bigint;
  availableBefore: bigint;
  balanceAfter: bigint;
  availableAfter: bigint;
}

export interface StatementLine extends movements.MovementRow {
  balanceAfter: bigint;
  availableAfter: bigint;
}

export interface StatementQuery {
  order: 'ASC' | 'DESC';
  /** Continue after this position (a line of an earlier page), in `order`. */
  after: StatementPosition | null;
  from: Date | null;
  to: Date | null;
  limit: number;
}

export interface StatementPage {
  lines: StatementLine[];
  hasMore: boolean;
  /** The account's balances as the page was read (zero for an account that does not exist yet). */
  current: Balance;
}

export function positionOf(line: StatementLine): StatementPosition {
  return {
    seq: line.seq,
    balanceAfter: line.balanceAfter,
    availableAfter: line.availableAfter,
    balanceBefore: line.balanceAfter - line.balanceChange,
    availableBefore: line.availableAfter - line.availableChange,
  };
}

type Totals = { balance: bigint; available: bigint };

/** The balances just before the first row of a page read without a cursor. */
async function startOf(client: Queryable, accountId: string, query: StatementQuery, first: movements.MovementRow, current: Balance): Promise<Totals> {
  if (query.order === 'ASC') {
    if (query.from === null) return { balance: 0n, available: 0n }; // the first movement of the account
    const later = await movements.changesAfter(client, accountId, first.seq);
    return { balance: current.balance - later.balance - first.balanceChange, available: current.available - later.available - first.availableChange };
  }
  // newest first: the balances after the first row are today's, less what came after it
  const later = query.to === null ? { balance: 0n, available: 0n } : await movements.changesAfter(client, accountId, first.seq);
  return { balance: current.balance - later.balance, available: current.available - later.available };
}

function runningLines(rows: movements.MovementRow[], order: 'ASC' | 'DESC', start: Totals): StatementLine[] {
  let { balance, available } = start;
  return rows.map((row) => {
    if (order === 'ASC') {
      balance += row.balanceChange;
      available += row.availableChange;
      return { ...row, balanceAfter: balance, availableAfter: available };
    }
    const line = { ...row, balanceAfter: balance, availableAfter: available };
    balance -= row.balanceChange;
    available -= row.availableChange;
    return line;
  });
}

export async function readStatement(db: Db, spec: AccountSpec, query: StatementQuery): Promise<StatementPage> {
  assert.ok(query.limit >= 1, 'a statement page holds at least one line');
  return withTransaction(db, async (client) => {
    const accountId = (await findAccountIds(client, [spec])).get(accountKey(spec));
    const zero: Balance = { balance: 0n, available: 0n, reserved: 0n };
    if (accountId === undefined || !(await movements.lockForStatement(client, accountId))) return { lines: [], hasMore: false, current: zero };
    const current = (await balances(client, [spec])).get(accountKey(spec))!;
    const rows = await movements.listMovements(client, accountId, {
      order: query.order, beyondSeq: query.after?.seq ?? null, from: query.from, to: query.to, limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const hasMore = rows.length > query.limit;
    if (page.length === 0) return { lines: [], hasMore, current };
    const start = query.after
      ? query.order === 'ASC'
        ? { balance: query.after.balanceAfter, available: query.after.availableAfter }
        : { balance: query.after.balanceBefore, available: query.after.availableBefore }
      : await startOf(client, accountId, query, page[0]!, current);
    const lines = runningLines(page, query.order, start);
    checkEnds(query, lines, hasMore, current);
    return { lines, hasMore, current };
  });
}

/** Where a page reaches an end of the whole history, its running balances must meet it exactly. */
function checkEnds(query: StatementQuery, lines: StatementLine[], hasMore: boolean, current: Balance): void {
  if (hasMore || query.from !== null || query.to !== null) return;
  const last = lines.at(-1)!;
  if (query.order === 'ASC') {
    assert.deepEqual([last.balanceAfter, last.availableAfter], [current.balance, current.available], 'the statement ends at the account balances');
  } else {
    const oldest = positionOf(last);
    assert.deepEqual([oldest.balanceBefore, oldest.availableBefore], [0n, 0n], 'the statement starts from zero');
  }
}
