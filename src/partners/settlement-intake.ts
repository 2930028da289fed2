// Settlement confirmation intake: a destination member's signed word that it credited a
// settlement's local currency to the source member's prefund account. Recorded once per
// settlement and only with the amount and currency the notice agreed (settlementAmt * locked
// rate); a confirmation that differs from the agreement, or from the one recorded, is refused and
// kept for an operator: a partner crediting another amount than agreed is an incident.
import { type Db, type DbClient } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { formatMinor, parseAmount } from '../platform/money.ts';
import { ok, refuse, type Result } from '../platform/result.ts';
import * as repo from '../settlements/confirmations-repo.ts';
import type { SettlementConfirmation, SettlementConfirmationAnswer } from './settlement-protocol.ts';
import type { ConfirmationRefusal } from './errors.ts';

export type ConfirmationResult = Result<SettlementConfirmationAnswer, ConfirmationRefusal>;

/** The amount in minor units of the currency, or undefined when it is not one (too many decimals). */
function minorOf(amount: string, currency: string): bigint | undefined {
  const parsed = parseAmount(amount, currency);
  return parsed.ok ? parsed.minor : undefined;
}

/** The amount agreed in the notice is exactly what the partner says it credited. */
export function creditsAgree(agreed: { amount: string; currency: string }, credited: { amount: string; currency: string }): boolean {
  const agreedMinor = minorOf(agreed.amount, agreed.currency);
  return agreed.currency === credited.currency && agreedMinor !== undefined && agreedMinor === minorOf(credited.amount, credited.currency);
}

function answerOf(notice: repo.NoticeRow, confirmation: repo.ConfirmationRow): SettlementConfirmationAnswer {
  return {
    settlementId: notice.settlementId, reference: notice.reference, partnerCreditId: confirmation.partnerCreditId,
    creditedAmount: formatMinor(minorOf(confirmation.creditedAmount, confirmation.currency)!, confirmation.currency), currency: confirmation.currency,
  };
}

function sameConfirmation(row: repo.ConfirmationRow, sent: SettlementConfirmation): boolean {
  return creditsAgree({ amount: row.creditedAmount, currency: row.currency }, { amount: sent.creditedAmount, currency: sent.currency })
    && row.partnerCreditId === sent.partnerCreditId && row.creditedAt.getTime() === new Date(sent.creditedAt).getTime();
}

async function record(client: DbClient, memberId: string, sent: SettlementConfirmation): Promise<ConfirmationResult> {
  const notice = await repo.findNotice(client, { reference: sent.reference, settlementId: sent.settlementId });
  if (!notice || notice.destinationMemberId !== memberId) return refuse('SETTLEMENT_NOT_FOUND');
  const received = { ...sent, settlementId: notice.settlementId, destinationMemberId: memberId };
  const recorded = await repo.findConfirmation(client, notice.settlementId);
  if (recorded) {
    if (sameConfirmation(recorded, sent)) return ok(answerOf(notice, recorded));
    await repo.recordRefusedConfirmation(client, 'CONFIRMATION_CHANGED', received);
    return refuse('CONFIRMATION_CHANGED');
  }
  if (!creditsAgree({ amount: notice.creditAmount, currency: notice.currency }, { amount: sent.creditedAmount, currency: sent.currency })) {
    await repo.recordRefusedConfirmation(client, 'AMOUNT_MISMATCH', received);
    const agreed = formatMinor(minorOf(notice.creditAmount, notice.currency)!, notice.currency);
    return refuse('CREDIT_NOT_AGREED', `creditedAmount: ${sent.creditedAmount} ${sent.currency} credited, ${agreed} ${notice.currency} agreed`);
  }
  const inserted = await repo.insertConfirmation(client, { ...received, creditedAt: sent.creditedAt });
  // a concurrent copy committed first: answer as it was recorded
  if (!inserted) return record(client, memberId, sent);
  return ok(answerOf(notice, inserted));
}

export function createSettlementIntake(deps: { db: Db }) {
  return {
    /** `memberId` is the partner whose key signed the request. */
    receive(memberId: string, confirmation: SettlementConfirmation): Promise<ConfirmationResult> {
      if (confirmation.reference === undefined && confirmation.settlementId === undefined) return Promise.resolve(refuse('SETTLEMENT_UNNAMED'));
      return withTransaction(deps.db, (client) => record(client, memberId, confirmation));
    },
  };
}
export type SettlementIntake = ReturnType<typeof createSettlementIntake>;
