// Operator commands of the settlement area: destination members' wallet addresses, and settlements
// parked for review (npm run admin -- settlements reviews | resolve).
import type { Db } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { systemClock } from '../platform/clock.ts';
import { checksumAddress, isChecksummedAddress } from '../platform/evm-address.ts';
import { insertAudit } from '../audit/repo.ts';
import { setWalletAddress } from '../members/repo.ts';
import { listReviews, OUTCOMES, type Outcome, type ReviewRow } from '../settlements/review-repo.ts';
import { resolveReview } from '../settlements/review.ts';
import { CommandError, UsageError } from './errors.ts';

export const SETTLEMENTS_USAGE = `  members set-wallet MEMBER_ID 0xADDRESS [--actor NAME]
  settlements reviews [--all] [--limit N]
  settlements resolve REVIEW_ID --outcome MOVED|NOT_MOVED --note TEXT [--actor NAME]`;

export const SETTLEMENTS_COMMANDS = ['members set-wallet', 'settlements reviews', 'settlements resolve'];
export const SETTLEMENTS_LIST_COMMANDS = ['settlements reviews'];

function reviewView(r: ReviewRow): object {
  return {
    reviewId: r.reviewId, settlementId: r.settlementId, step: r.step, reason: r.reason, detail: r.detail, openedAt: r.openedAt,
    outcome: r.outcome, resolvedBy: r.resolvedBy, resolvedAt: r.resolvedAt, note: r.note,
  };
}

export interface SettlementsOptions { actor: string; all: boolean; limit: number; outcome?: string; note?: string }

export async function executeSettlements(db: Db, command: string, args: string[], options: SettlementsOptions): Promise<{ rows: object[]; note?: string }> {
  switch (command) {
    case 'members set-wallet': {
      const [memberId, address] = args;
      if (!memberId || !address) throw new UsageError('members set-wallet needs a MEMBER_ID and an address');
      if (!isChecksummedAddress(address)) {
        throw new UsageError(checksumAddress(address) === undefined
          ? `"${address}" is not an EVM address (0x and 40 hex digits)`
          : `"${address}" is not written with its EIP-55 checksum: copy the address exactly as the member's wallet shows it`);
      }
      const before = await withTransaction(db, async (client) => {
        const changed = await setWalletAddress(client, memberId, address);
        if (changed) await insertAudit(client, { actor: options.actor, action: 'members.set-wallet', subject: `member:${memberId}`, before: { walletAddress: changed.before }, after: { walletAddress: address } });
        return changed;
      });
      if (!before) throw new CommandError(`NOT_FOUND: no destination member ${memberId}`);
      return { rows: [{ memberId, walletAddress: address, previousWalletAddress: before.before }] };
    }
    case 'settlements reviews':
      return { rows: (await listReviews(db, { all: options.all, limit: options.limit })).map(reviewView) };
    case 'settlements resolve': {
      const [reviewId] = args;
      if (!reviewId) throw new UsageError('settlements resolve needs a REVIEW_ID');
      const outcome = options.outcome?.toUpperCase();
      if (!OUTCOMES.includes(outcome as Outcome)) throw new UsageError(`--outcome is one of ${OUTCOMES.join(', ')}`);
      if (!options.note) throw new UsageError('--note is required');
      const result = await resolveReview({ db, clock: systemClock }, reviewId, outcome as Outcome, options.actor, options.note);
      if (!result.ok) throw new CommandError(`${result.error}: ${result.detail}`);
      return { rows: [{ ...reviewView(result.review), settlementStatus: result.settlementStatus }] };
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}
