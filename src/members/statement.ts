// A source member's prefund statement at one destination member, in one currency: every movement
// of that prefund account with the balances after it (GET /v2/destination-members/{id}/statement).
//
// What moves what: a payout (and its fee) first reserves, which lowers availableBalance only; when
// the payout completes the reservation is posted, which lowers balance only (availableBalance fell
// already); when it does not complete (rejected, failed, cancelled, expired) the reservation is
// released, which gives availableBalance back. Everything else (settlements, reversals, late
// charges, sandbox credits and debits) moves both at once. So after the last movement the running
// balances are exactly GET /v2/destination-members' balance and availableBalance.
import assert from 'node:assert/strict';
import type { Db } from '../platform/database/pool.ts';
import { prefundAccount } from '../ledger/accounts.ts';
import type { Balance } from '../ledger/service.ts';
import { positionOf, readStatement, type StatementLine } from '../ledger/statement.ts';
import type { MovementPhase } from '../ledger/movements-repo.ts';
import type { CursorCodec } from './statement-cursor.ts';
import * as repo from './repo.ts';

export const STATEMENT_PAGE_SIZE_DEFAULT = 50;
export const STATEMENT_PAGE_SIZE_MAX = 100;

export const MOVEMENT_TYPES = [
  'PAYOUT_RESERVED', 'PAYOUT_POSTED', 'PAYOUT_RELEASED',
  'PAYOUT_FEE_RESERVED', 'PAYOUT_FEE_POSTED', 'PAYOUT_FEE_RELEASED',
  'PAYOUT_REVERSAL', 'PAYOUT_FEE_REVERSAL', 'PAYOUT_LATE_CHARGE', 'PAYOUT_FEE_LATE_CHARGE',
  'SETTLEMENT_CREDIT', 'SANDBOX_PREFUND_CREDIT', 'SANDBOX_PREFUND_DEBIT', 'OPERATOR_ADJUSTMENT', 'OTHER',
] as const;
export type MovementType = (typeof MOVEMENT_TYPES)[number];

export type Affects = 'BALANCE' | 'AVAILABLE_BALANCE' | 'BOTH';
type Refers = 'PAYOUT' | 'SETTLEMENT' | 'NONE';
interface Kind { type: MovementType; refers: Refers; text: string }

// The ledger's reasons (what wrote the transfer) and phases, as statement types. A pair missing
// here is shown as OTHER, with the reason in its description, rather than hidden.
const KINDS: Record<string, Partial<Record<MovementPhase, Kind>>> = {
  PAYOUT: {
    CREATED: { type: 'PAYOUT_RESERVED', refers: 'PAYOUT', text: 'Payout amount reserved' },
    POSTED: { type: 'PAYOUT_POSTED', refers: 'PAYOUT', text: 'Payout amount paid out (reservation posted)' },
    VOIDED: { type: 'PAYOUT_RELEASED', refers: 'PAYOUT', text: 'Payout amount released (the payout was rejected, failed, cancelled or expired)' },
  },
  PAYOUT_FEE: {
    CREATED: { type: 'PAYOUT_FEE_RESERVED', refers: 'PAYOUT', text: 'Payout fee reserved' },
    POSTED: { type: 'PAYOUT_FEE_POSTED', refers: 'PAYOUT', text: 'Payout fee charged (reservation posted)' },
    VOIDED: { type: 'PAYOUT_FEE_RELEASED', refers: 'PAYOUT', text: 'Payout fee released (the payout was rejected, failed, cancelled or expired)' },
  },
  PAYOUT_REVERSAL: { CREATED: { type: 'PAYOUT_REVERSAL', refers: 'PAYOUT', text: 'Payout amount returned by the partner' } },
  PAYOUT_FEE_REVERSAL: { CREATED: { type: 'PAYOUT_FEE_REVERSAL', refers: 'PAYOUT', text: 'Payout fee refunded with the returned payout' } },
  PAYOUT_LATE_CHARGE: { CREATED: { type: 'PAYOUT_LATE_CHARGE', refers: 'PAYOUT', text: 'Payout amount charged: paid after its reservation was released' } },
  PAYOUT_FEE_LATE_CHARGE: { CREATED: { type: 'PAYOUT_FEE_LATE_CHARGE', refers: 'PAYOUT', text: 'Payout fee charged: paid after its reservation was released' } },
  SETTLEMENT_OUT: { CREATED: { type: 'SETTLEMENT_CREDIT', refers: 'SETTLEMENT', text: 'Settlement received' } },
  SANDBOX_PREFUND_CREDIT: { CREATED: { type: 'SANDBOX_PREFUND_CREDIT', refers: 'NONE', text: 'Sandbox prefund credit' } },
  SANDBOX_SEED: { CREATED: { type: 'SANDBOX_PREFUND_CREDIT', refers: 'NONE', text: 'Sandbox opening prefund' } },
  SANDBOX_PREFUND_DEBIT: { CREATED: { type: 'SANDBOX_PREFUND_DEBIT', refers: 'NONE', text: 'Sandbox prefund debit' } },
  OPERATOR_ADJUSTMENT: { CREATED: { type: 'OPERATOR_ADJUSTMENT', refers: 'NONE', text: 'Adjustment by an operator' } },
};

const MOVEMENT_ID_SUFFIX: Record<MovementPhase, string> = { CREATED: '', POSTED: ':posted', VOIDED: ':released' };

/** One statement line, amounts in minor units (the routes write them as JSON numbers or CSV text). */
export interface Movement {
  movementId: string;
  transferId: string;
  time: Date;
  type: MovementType;
  affects: Affects;
  amount: bigint;
  runningBalance: bigint;
  runningAvailableBalance: bigint;
  payoutId?: string;
  settlementId?: string;
  description: string;
}

function toMovement(line: StatementLine): Movement {
  const kind = KINDS[line.reason]?.[line.phase];
  const balanceMoves = line.balanceChange !== 0n;
  const availableMoves = line.availableChange !== 0n;
  assert.ok(balanceMoves || availableMoves, `movement ${line.transferId} ${line.phase} changes nothing`);
  if (balanceMoves && availableMoves) assert.equal(line.balanceChange, line.availableChange, `movement ${line.transferId}: one amount`);
  return {
    movementId: `${line.transferId}${MOVEMENT_ID_SUFFIX[line.phase]}`,
    transferId: line.transferId,
    time: line.at,
    type: kind?.type ?? 'OTHER',
    affects: balanceMoves && availableMoves ? 'BOTH' : balanceMoves ? 'BALANCE' : 'AVAILABLE_BALANCE',
    amount: balanceMoves ? line.balanceChange : line.availableChange,
    runningBalance: line.balanceAfter,
    runningAvailableBalance: line.availableAfter,
    ...(kind?.refers === 'PAYOUT' ? { payoutId: line.reference } : {}),
    ...(kind?.refers === 'SETTLEMENT' ? { settlementId: line.reference } : {}),
    description: kind?.text ?? `Ledger movement (${line.reason}, ${line.phase.toLowerCase()})`,
  };
}

export interface StatementRequest {
  currency?: string;
  order: 'asc' | 'desc';
  limit: number;
  after?: string;
  from?: Date;
  to?: Date;
}

export interface Statement {
  destinationMemberId: string;
  currency: string;
  order: 'asc' | 'desc';
  current: Balance;
  movements: Movement[];
  hasMore: boolean;
  nextAfter: string | null;
}

export type StatementError =
  | { error: 'NOT_FOUND'; detail: string }
  | { error: 'INVALID'; detail: string };

export type StatementResult = { ok: true; value: Statement } | ({ ok: false } & StatementError);

/** The destination member's currency this statement is in, or why the request names none it may see. */
async function currencyOf(db: Db, memberId: string, destinationMemberId: string, currency: string | undefined): Promise<{ ok: true; currency: string } | ({ ok: false } & StatementError)> {
  const destination = await repo.findMember(db, destinationMemberId);
  // no corridor from the caller (even a suspended one): not a statement the caller has
  if (destination?.kind !== 'DESTINATION' || (await repo.corridorTerms(db, memberId, destinationMemberId)).length === 0) {
    return { ok: false, error: 'NOT_FOUND', detail: `destinationMemberId: ${destinationMemberId} has no corridor from you` };
  }
  if (currency === undefined) {
    if (destination.currencies.length === 1) return { ok: true, currency: destination.currencies[0]! };
    return { ok: false, error: 'INVALID', detail: `currency: required, ${destinationMemberId} holds ${destination.currencies.join(', ')}` };
  }
  if (!destination.currencies.includes(currency)) return { ok: false, error: 'INVALID', detail: `currency: ${destinationMemberId} holds ${destination.currencies.join(', ')}` };
  return { ok: true, currency };
}

export function createStatementService(deps: { db: Db; cursors: CursorCodec }) {
  const { db, cursors } = deps;
  return {
    async read(memberId: string, destinationMemberId: string, request: StatementRequest): Promise<StatementResult> {
      if (request.from && request.to && request.to.getTime() <= request.from.getTime()) {
        return { ok: false, error: 'INVALID', detail: 'to: must be later than from' };
      }
      const found = await currencyOf(db, memberId, destinationMemberId, request.currency);
      if (!found.ok) return found;
      const of = { memberId, destinationMemberId, currency: found.currency };
      const after = request.after === undefined ? null : cursors.decode(of, request.after);
      if (after === undefined) return { ok: false, error: 'INVALID', detail: 'after: not a cursor of this statement' };
      const order = request.order === 'asc' ? 'ASC' : 'DESC';
      const page = await readStatement(db, prefundAccount(memberId, destinationMemberId, found.currency), {
        order, after, from: request.from ?? null, to: request.to ?? null, limit: request.limit,
      });
      const last = page.lines.at(-1);
      // oldest first, the cursor stays usable to ask later for what is new; newest first, the history ends
      const nextAfter = last ? (order === 'ASC' || page.hasMore ? cursors.encode(of, positionOf(last)) : null) : (order === 'ASC' ? request.after ?? null : null);
      return {
        ok: true,
        value: {
          destinationMemberId, currency: found.currency, order: request.order, current: page.current,
          movements: page.lines.map(toMovement), hasMore: page.hasMore, nextAfter,
        },
      };
    },
  };
}

export type StatementService = ReturnType<typeof createStatementService>;
