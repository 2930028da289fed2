// The one place where a payout changes state: lock the row, check the move against the tables
// of lifecycle.ts, then write the new state, its ledger movement and its event in the caller's
// transaction.
import { legTransferId } from '../ledger/transfer-ids.ts';
import type { Queryable } from '../platform/database/pool.ts';
import { parseAmount } from '../platform/money.ts';
import { feesAccount, payoutClearingAccount, prefundAccount } from '../ledger/accounts.ts';
import { createTransfers, lockAccountsOf, postPending, voidPending } from '../ledger/service.ts';
import type { AccountSpec } from '../ledger/accounts.ts';
import { insertEvents, type NewEvent } from '../events/repo.ts';
import {
  findCancellationTransition, findTransition, type CancellationEvent, type PayoutEvent, type PayoutStatus,
} from './lifecycle.ts';
import * as repo from './repo.ts';
import { statusView } from './views.ts';
import type { ReviewRow } from './review-repo.ts';

export interface EventDetails {
  cashoutStatus?: string;
  rejectReason?: string;
  submissionState?: repo.PayoutRow['submissionState'];
}

export type ApplyResult =
  | { ok: true; row: repo.PayoutRow }
  | { ok: false; error: 'INVALID_STATE' | 'INSUFFICIENT_PREFUND'; row: repo.PayoutRow }
  | { ok: false; error: 'NOT_FOUND' };

function eventData(row: repo.PayoutRow, previousStatus: string | null) {
  return { ...statusView(row), payoutId: row.payoutId, sourceMemberPayoutId: row.sourceMemberPayoutId, previousStatus };
}

/** The status-changed event of a payout that has just been written as `row`. */
export function statusEvent(row: repo.PayoutRow, previousStatus: PayoutStatus | null): NewEvent {
  return { memberId: row.sourceMemberId, type: 'payout.status_changed', resourceId: row.payoutId, sequence: row.eventSequence, data: eventData(row, previousStatus) };
}

function minor(row: repo.PayoutRow, amount: string): bigint {
  const parsed = parseAmount(amount, row.destinationCcy);
  if (!parsed.ok) throw new Error(`payout ${row.payoutId}: stored amount ${amount} is not exact`);
  return parsed.minor;
}

/**
 * The reservation's movement made again, posted at once: back to the prefund (REVERSE: the partner
 * gave the money back) or out of it (CHARGE: paid after the reservation had been released).
 * Answers false when a charge finds the prefund short.
 */
async function moveAgain(db: Queryable, row: repo.PayoutRow, direction: 'REVERSE' | 'CHARGE'): Promise<boolean> {
  const prefund = prefundAccount(row.sourceMemberId, row.destinationMemberId, row.destinationCcy);
  const clearing = payoutClearingAccount(row.destinationMemberId, row.destinationCcy);
  const fees = feesAccount(row.destinationCcy);
  const amount = minor(row, row.payoutAmt);
  const fee = minor(row, row.transferFee);
  const reference = row.payoutId;
  const charge = direction === 'CHARGE';
  const group = [charge
    ? { transferId: legTransferId(reference, 'PAYOUT_LATE_CHARGE'), debit: prefund, credit: clearing, amount, reason: 'PAYOUT_LATE_CHARGE', reference }
    : { transferId: legTransferId(reference, 'PAYOUT_REVERSAL'), debit: clearing, credit: prefund, amount, reason: 'PAYOUT_REVERSAL', reference }];
  if (fee > 0n) {
    group.push(charge
      ? { transferId: legTransferId(reference, 'PAYOUT_FEE_LATE_CHARGE'), debit: prefund, credit: fees, amount: fee, reason: 'PAYOUT_FEE_LATE_CHARGE', reference }
      : { transferId: legTransferId(reference, 'PAYOUT_FEE_REVERSAL'), debit: fees, credit: prefund, amount: fee, reason: 'PAYOUT_FEE_REVERSAL', reference });
  }
  const [result] = await createTransfers(db, [group], { twoPhase: false });
  return result!.ok;
}

/** The ledger accounts a payout's movements touch: its reservation's, which a reversal also uses. */
function accountsOf(row: repo.PayoutRow): AccountSpec[] {
  const accounts = [prefundAccount(row.sourceMemberId, row.destinationMemberId, row.destinationCcy), payoutClearingAccount(row.destinationMemberId, row.destinationCcy)];
  if (minor(row, row.transferFee) > 0n) accounts.push(feesAccount(row.destinationCcy));
  return accounts;
}

/**
 * For a transaction that applies events to several locked payouts: locks, up front and in one
 * statement, the ledger accounts of those whose move voids, reverses or charges (the ledger's LOCK ORDER,
 * ledger/service.ts). Moves that post or touch no money lock no account, so they are left out.
 */
export async function lockLedgerFor(db: Queryable, moves: Array<{ row: repo.PayoutRow; event: PayoutEvent | undefined }>): Promise<void> {
  const moving = moves.filter(({ row, event }) => {
    const ledger = event && findTransition(row.payoutStatus, event)?.ledger;
    return ledger === 'VOID' || ledger === 'REVERSE' || ledger === 'CHARGE';
  });
  await lockAccountsOf(db, moving.flatMap(({ row }) => accountsOf(row)));
}

const TIME_OF: Partial<Record<PayoutStatus, 'completionTime' | 'rejectionTime' | 'cancellationTime'>> = {
  PRCD: 'completionTime',
  RJCT: 'rejectionTime',
  FAIL: 'rejectionTime',
  CNCL: 'cancellationTime',
};

/** Applies one payout event to a payout whose row is locked (pass it as `locked`). */
export async function applyToLocked(db: Queryable, locked: repo.PayoutRow, event: PayoutEvent, details: EventDetails, now: Date): Promise<ApplyResult> {
  const transition = findTransition(locked.payoutStatus, event);
  if (!transition) return { ok: false, error: 'INVALID_STATE', row: locked };
  if (transition.ledger === 'POST') await postPending(db, locked.payoutId);
  if (transition.ledger === 'VOID') await voidPending(db, locked.payoutId);
  if (transition.ledger === 'REVERSE') await moveAgain(db, locked, 'REVERSE');
  if (transition.ledger === 'CHARGE' && !(await moveAgain(db, locked, 'CHARGE'))) return { ok: false, error: 'INSUFFICIENT_PREFUND', row: locked };
  const timeColumn = TIME_OF[transition.to];
  const change: repo.PayoutChange = {
    payoutStatus: transition.to,
    eventSequence: locked.eventSequence + 1,
    ...(details.cashoutStatus !== undefined ? { cashoutStatus: details.cashoutStatus } : {}),
    ...(details.rejectReason !== undefined ? { rejectReason: details.rejectReason } : {}),
    ...(details.submissionState !== undefined ? { submissionState: details.submissionState } : {}),
    ...(timeColumn ? { [timeColumn]: now } : {}),
  };
  await repo.updatePayout(db, locked.payoutId, change);
  const row: repo.PayoutRow = { ...locked, ...change } as repo.PayoutRow;
  await insertEvents(db, [statusEvent(row, locked.payoutStatus)]);
  return { ok: true, row };
}

/** Moves the cancellation status of a locked payout and writes its event. */
export async function changeCancellation(
  db: Queryable, locked: repo.PayoutRow, event: CancellationEvent, extra: { cancellationReason?: string } = {},
): Promise<ApplyResult> {
  const transition = findCancellationTransition(locked.cancellationStatus, event);
  if (!transition) return { ok: false, error: 'INVALID_STATE', row: locked };
  const change: repo.PayoutChange = {
    cancellationStatus: transition.to,
    eventSequence: locked.eventSequence + 1,
    ...(extra.cancellationReason !== undefined ? { cancellationReason: extra.cancellationReason } : {}),
  };
  await repo.updatePayout(db, locked.payoutId, change);
  const row = { ...locked, ...change } as repo.PayoutRow;
  await insertEvents(db, [{
    memberId: row.sourceMemberId,
    type: 'payout.cancellation_status_changed',
    resourceId: row.payoutId,
    sequence: row.eventSequence,
    data: eventData(row, locked.cancellationStatus),
  }]);
  return { ok: true, row };
}

/** Only the submission bookkeeping or cashout status changes (no new payout status, no event). */
export async function noteSubmission(db: Queryable, locked: repo.PayoutRow, details: EventDetails): Promise<repo.PayoutRow> {
  const change: repo.PayoutChange = {
    ...(details.submissionState !== undefined ? { submissionState: details.submissionState } : {}),
    ...(details.cashoutStatus !== undefined ? { cashoutStatus: details.cashoutStatus } : {}),
  };
  await repo.updatePayout(db, locked.payoutId, change);
  return { ...locked, ...change } as repo.PayoutRow;
}

/** Publishes that a locked payout's review opened or closed (members see it among their events). */
export async function reviewChanged(db: Queryable, locked: repo.PayoutRow, review: ReviewRow, reviewStatus: 'OPEN' | 'RESOLVED'): Promise<repo.PayoutRow> {
  const change: repo.PayoutChange = { eventSequence: locked.eventSequence + 1 };
  await repo.updatePayout(db, locked.payoutId, change);
  const row = { ...locked, ...change } as repo.PayoutRow;
  await insertEvents(db, [{
    memberId: row.sourceMemberId,
    type: 'payout.review_status_changed',
    resourceId: row.payoutId,
    sequence: row.eventSequence,
    data: {
      payoutId: row.payoutId, sourceMemberPayoutId: row.sourceMemberPayoutId, payoutStatus: row.payoutStatus, reviewStatus,
      reviewReason: review.reason, ...(review.resolution ? { resolution: review.resolution } : {}),
    },
  }]);
  return row;
}
