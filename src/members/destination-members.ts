// The destination member record of CONTRACT section 4, as a source member sees it: the partner,
// its currencies, and the caller's prefund there (posted balance and what is still available).
import type { Queryable } from '../platform/database/pool.ts';
import { toJsonNumber } from '../platform/money.ts';
import { accountKey, prefundAccount } from '../ledger/accounts.ts';
import { balances } from '../ledger/service.ts';
import * as repo from './repo.ts';

export interface DestinationMemberRecord {
  memberId: string;
  name: string;
  countryCode: string;
  supportedCcyList: string[];
  prefundBalance: Array<{ currency: string; balance: number; availableBalance: number }>;
}

export async function destinationMemberRecords(db: Queryable, sourceMemberId: string, members: repo.Member[]): Promise<DestinationMemberRecord[]> {
  const specs = members.flatMap((m) => m.currencies.map((ccy) => prefundAccount(sourceMemberId, m.memberId, ccy)));
  const found = await balances(db, specs);
  return members.map((m) => ({
    memberId: m.memberId,
    name: m.name,
    countryCode: m.countryCode,
    supportedCcyList: m.currencies,
    prefundBalance: m.currencies.map((currency) => {
      const b = found.get(accountKey(prefundAccount(sourceMemberId, m.memberId, currency)))!;
      return { currency, balance: toJsonNumber(b.balance, currency), availableBalance: toJsonNumber(b.available, currency) };
    }),
  }));
}

/** Every destination member the source member has an active corridor with. */
export async function listDestinationMembers(db: Queryable, sourceMemberId: string): Promise<DestinationMemberRecord[]> {
  return destinationMemberRecords(db, sourceMemberId, await repo.listActiveDestinations(db, sourceMemberId));
}
