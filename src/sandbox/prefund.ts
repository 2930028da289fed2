// Sandbox control: credit (or, negative, debit) the caller's prefund at a destination member,
// through the ledger like any other movement, never below what payouts have reserved.
import { randomUUID } from 'node:crypto';
import { type Db } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { parseAmount } from '../platform/money.ts';
import { fundingAccount, prefundAccount } from '../ledger/accounts.ts';
import { createTransfers } from '../ledger/service.ts';
import * as members from '../members/repo.ts';
import { destinationMemberRecords, type DestinationMemberRecord } from '../members/destination-members.ts';
import { ok, refuse, type Result } from '../platform/result.ts';
import type { PrefundRefusal } from './errors.ts';

export interface PrefundRequest {
  sourceMemberId: string;
  destinationMemberId: string;
  currency: string;
  amount: number;
}

export async function adjustPrefund(db: Db, request: PrefundRequest): Promise<Result<DestinationMemberRecord, PrefundRefusal>> {
  const { sourceMemberId, destinationMemberId, currency } = request;
  const member = await members.findMember(db, destinationMemberId);
  const corridors = member ? (await members.listCorridors(db, sourceMemberId)).filter((c) => c.destinationMemberId === destinationMemberId) : [];
  if (!member || member.kind !== 'DESTINATION' || corridors.length === 0) {
    return refuse('UNKNOWN_DESTINATION_MEMBER', `destinationMemberId: ${destinationMemberId} has no corridor from you`);
  }
  if (!member.currencies.includes(currency)) {
    return refuse('UNSUPPORTED_CURRENCY', `currency: ${destinationMemberId} holds ${member.currencies.join(', ')}`);
  }
  const parsed = parseAmount(request.amount, currency);
  if (!parsed.ok) return refuse('INVALID_AMOUNT', `amount: has more decimals than ${currency} allows`);
  if (parsed.minor === 0n) return refuse('INVALID_AMOUNT', 'amount: must not be 0');
  const prefund = prefundAccount(sourceMemberId, destinationMemberId, currency);
  const funding = fundingAccount(destinationMemberId, currency);
  const credit = parsed.minor > 0n;
  return withTransaction(db, async (client) => {
    const [result] = await createTransfers(
      client,
      [[{
        transferId: randomUUID(),
        debit: credit ? funding : prefund,
        credit: credit ? prefund : funding,
        amount: credit ? parsed.minor : -parsed.minor,
        reason: credit ? 'SANDBOX_PREFUND_CREDIT' : 'SANDBOX_PREFUND_DEBIT',
        reference: `sandbox-prefund:${sourceMemberId}`,
      }]],
      { twoPhase: false },
    );
    if (!result!.ok) return refuse('INSUFFICIENT_PREFUND', 'amount: would take the prefund below what payouts have reserved');
    const [record] = await destinationMemberRecords(client, sourceMemberId, [member]);
    return ok(record!);
  });
}
