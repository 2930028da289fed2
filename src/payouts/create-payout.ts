// POST /v2/payouts: validate against the provider, price, reserve payoutAmt + transferFee from the
// caller's prefund, and record the payout with its first event and its expiry queue row (read by
// the expiry sweep in jobs.ts), all at once. Creations are group-committed (platform/batcher.ts)
// so that one hot prefund account takes one lock and one commit for many payouts: one statement
// for the batch when the prefund pays for all of it, else one transaction that refuses only the
// payouts it cannot pay for. Idempotent by sourceMemberPayoutId.
import { randomUUID } from 'node:crypto';
import { legTransferId } from '../ledger/transfer-ids.ts';
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/database/pool.ts';
import { isTransientDatabaseError, withTransaction } from '../platform/database/transaction.ts';
import { createBatcher } from '../platform/batcher.ts';
import { requestFingerprint } from '../platform/idempotency.ts';
import { formatMinor } from '../platform/money.ts';
import { feesAccount, payoutClearingAccount, prefundAccount } from '../ledger/accounts.ts';
import { createTransfers, isOverdraftRefusal, prepareReservations, type TransferGroup } from '../ledger/service.ts';
import { createDirectory, type Directory } from '../members/directory.ts';
import type { ProvidersService } from '../providers/service.ts';
import type { CreatePayoutInput } from './input.ts';
import * as repo from './repo.ts';
import { statusEvent } from './apply.ts';
import { createResponseOf, expiryOf, payoutTerms, type PayoutRuleSources } from './payout-terms.ts';
import { ok, refuse, type Result } from '../platform/result.ts';
import type { CreateRefusal } from './errors.ts';
import type { CreatePayoutResponse } from './schemas.ts';
import { fullName } from './names.ts';

/** The creation's answer (the stored one when replayed), or the refusal. */
export type CreateResult = Result<{ body: CreatePayoutResponse; replayed: boolean }, CreateRefusal>;

const BATCH_SIZE_MAX = 100;
/**
 * Per prefund account, one batch at a time: the next one gathers the requests that arrive
 * meanwhile. (Two at a time overlapped their inserts but queued on the account lock, and the
 * smaller batches cost PostgreSQL about a quarter more CPU per payout.)
 */
const BATCH_CONCURRENCY_MAX = 1;

const withEntityType = (person: Record<string, unknown>) => ({
  ...person,
  entityType: typeof person['companyName'] === 'string' && person['companyName'] !== '' ? 'BUSINESS' : 'INDIVIDUAL',
});

const withFirstEvent = (i: Priced) => ({
  payout: i.payout,
  firstEvent: statusEvent({ ...i.payout, cancellationStatus: null, cashoutStatus: null, rejectReason: null } as repo.PayoutRow, null),
});

interface Priced {
  payout: repo.NewPayout;
  reservation: TransferGroup;
}

type BatchOutcome = { kind: 'CREATED' } | { kind: 'EXISTS' } | { kind: 'INSUFFICIENT' };

export interface CreatePayoutDeps {
  db: Db;
  providers: ProvidersService;
  clock: Clock;
  expiryHours: number;
  directory?: Directory;
}

export function createPayoutCreator(deps: CreatePayoutDeps) {
  const accountIds = new Map<string, string>();
  const directory = deps.directory ?? createDirectory(deps.db, deps.clock);

  const sources: PayoutRuleSources = {
    findProvider: (payoutProviderId) => deps.providers.find(payoutProviderId),
    corridors: (sourceMemberId, destinationMemberId) => directory.corridors(sourceMemberId, destinationMemberId),
  };

  /** Every check that needs no lock, and the price; the reservation is made by the batch. */
  async function price(memberId: string, input: CreatePayoutInput, digest: string): Promise<Priced | CreateResult> {
    const checked = await payoutTerms(sources, memberId, input);
    if (!checked.ok) return checked;
    const { provider, method, segment, amountMinor: amount, feeMinor: fee } = checked.value;
    const currency = input.destinationCcy;
    const payoutId = randomUUID();
    const now = deps.clock.now();
    const expiry = expiryOf(now, deps.expiryHours);
    const createResponse = createResponseOf(payoutId, input, checked.value, expiry);
    const beneficiaryName = createResponse.beneficiaryName;
    const prefund = prefundAccount(memberId, provider.destinationMemberId, currency);
    const reservation: TransferGroup = [
      { transferId: legTransferId(payoutId, 'PAYOUT'), debit: prefund, credit: payoutClearingAccount(provider.destinationMemberId, currency), amount, reason: 'PAYOUT', reference: payoutId },
    ];
    if (fee > 0n) reservation.push({ transferId: legTransferId(payoutId, 'PAYOUT_FEE'), debit: prefund, credit: feesAccount(currency), amount: fee, reason: 'PAYOUT_FEE', reference: payoutId });
    return {
      reservation,
      payout: {
        payoutId, sourceMemberId: memberId, sourceMemberPayoutId: input.sourceMemberPayoutId, requestFingerprint: digest,
        payoutProviderId: provider.payoutProviderId, destinationMemberId: provider.destinationMemberId, payoutMethod: method,
        segment, destinationCcy: currency, payoutAmt: formatMinor(amount, currency), transferFee: formatMinor(fee, currency),
        payoutStatus: 'ACCP', sender: withEntityType(input.sender), beneficiary: withEntityType(input.beneficiary),
        complianceInfo: input.complianceInfo ?? null, senderName: fullName(input.sender), beneficiaryName,
        senderCountry: typeof input.sender['countryCode'] === 'string' ? input.sender['countryCode'] : null,
        beneficiaryCountry: typeof input.beneficiary['countryCode'] === 'string' ? input.beneficiary['countryCode'] : provider.countryCode,
        creationTime: now, expiryTime: expiry, eventSequence: 1, createResponse,
      },
    };
  }

  /**
   * Many creations in one statement, the common case: every account's id known, and the prefund
   * enough for all of them. Undefined when that is not so (nothing written): runBatch then takes
   * the transaction, which learns the ids and refuses only the payouts the prefund cannot pay for.
   */
  async function runAsOneStatement(items: Priced[]): Promise<BatchOutcome[] | undefined> {
    const reservations = prepareReservations(items.map((i) => i.reservation), accountIds);
    if (!reservations) return undefined;
    try {
      const inserted = await repo.insertReservedPayouts(deps.db, items.map(withFirstEvent), reservations);
      return items.map((i): BatchOutcome => (inserted.has(i.payout.payoutId) ? { kind: 'CREATED' } : { kind: 'EXISTS' }));
    } catch (error) {
      if (isOverdraftRefusal(error) || isTransientDatabaseError(error)) return undefined;
      throw error;
    }
  }

  /**
   * One transaction for many creations: insert the new ones with their events and expiry queue
   * rows, then reserve (the only step that locks the prefund account, so it comes last, just
   * before the commit), and take back out the few that the prefund cannot pay for.
   */
  async function runInTransaction(items: Priced[]): Promise<BatchOutcome[]> {
    const { outcomes, learned } = await withTransaction(deps.db, async (client) => {
      const learned = new Map<string, string>(); // per attempt: a rolled-back attempt's ids are forgotten
      const inserted = await repo.insertPayouts(client, items.map(withFirstEvent));
      const fresh = items.filter((i) => inserted.has(i.payout.payoutId));
      const reserved = await createTransfers(client, fresh.map((i) => i.reservation), { twoPhase: true, accountIds: { known: accountIds, learned } });
      const refused = new Set(fresh.filter((_, index) => !reserved[index]!.ok).map((i) => i.payout.payoutId));
      if (refused.size > 0) await repo.withdrawPayouts(client, [...refused]);
      const outcomes = items.map((i): BatchOutcome =>
        !inserted.has(i.payout.payoutId) ? { kind: 'EXISTS' } : refused.has(i.payout.payoutId) ? { kind: 'INSUFFICIENT' } : { kind: 'CREATED' });
      return { outcomes, learned };
    });
    for (const [key, id] of learned) accountIds.set(key, id); // committed: safe to remember
    return outcomes;
  }

  const runBatch = async (items: Priced[]) => (await runAsOneStatement(items)) ?? runInTransaction(items);

  const batcher = createBatcher<Priced, BatchOutcome>({
    run: runBatch,
    batchSizeMax: BATCH_SIZE_MAX,
    concurrencyMax: BATCH_CONCURRENCY_MAX,
    keyOf: (i) => `${i.payout.sourceMemberId}:${i.payout.destinationMemberId}:${i.payout.destinationCcy}`,
  });

  async function replayOrRefuse(memberId: string, input: CreatePayoutInput, digest: string): Promise<CreateResult | undefined> {
    const existing = await repo.findBySourceMemberPayoutId(deps.db, memberId, input.sourceMemberPayoutId);
    if (!existing) return undefined;
    if (existing.requestFingerprint === digest) return ok({ body: existing.createResponse, replayed: true });
    return refuse('DUPLICATE_SOURCE_MEMBER_PAYOUT_ID', `sourceMemberPayoutId: ${input.sourceMemberPayoutId} was used for a different request`);
  }

  return {
    async create(memberId: string, input: CreatePayoutInput): Promise<CreateResult> {
      const digest = requestFingerprint(input);
      // The happy path asks nothing up front: a reused sourceMemberPayoutId shows up as a
      // conflict in the batch insert. A refusal first looks for an earlier payout under the id,
      // so that a replay answers the original even when the same request would be refused now.
      const priced = await price(memberId, input, digest);
      if (!('payout' in priced)) return (await replayOrRefuse(memberId, input, digest)) ?? priced;
      const outcome = await batcher.submit(priced);
      if (outcome.kind === 'CREATED') return ok({ body: priced.payout.createResponse, replayed: false });
      if (outcome.kind === 'INSUFFICIENT') {
        return refuse('INSUFFICIENT_PREFUND', `payoutAmt: payoutAmt + transferFee exceeds your available prefund at ${priced.payout.destinationMemberId}`);
      }
      const existing = await replayOrRefuse(memberId, input, digest);
      if (!existing) throw new Error('payout reported as existing but not found');
      return existing;
    },
  };
}

export type PayoutCreator = ReturnType<typeof createPayoutCreator>;
