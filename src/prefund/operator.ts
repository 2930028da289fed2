// Prefund moved by an operator with a reason (npm run admin -- prefund credit|debit): money that
// reached, or left, a source member's prefund at a destination member outside the API (a wire,
// a correction). Each movement is one posted ledger transfer between the destination member's
// FUNDING account and the prefund, with an operator reference that makes it happen once: the same
// reference again moves nothing and answers the first movement. A debit never takes the prefund
// below what payouts have reserved (the prefund account may not be overdrawn, ledger/service.ts).
// The movement row, its transfer and the audit row commit together.
import { randomUUID } from 'node:crypto';
import { type Db, type Queryable } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { formatMinor, parseAmount } from '../platform/money.ts';
import { accountKey, fundingAccount, prefundAccount } from '../ledger/accounts.ts';
import { balances, createTransfers } from '../ledger/service.ts';
import * as members from '../members/repo.ts';
import { auditorFor } from '../audit/repo.ts';
import * as repo from './repo.ts';

export type PrefundAdminError =
  | 'UNKNOWN_SOURCE_MEMBER' | 'UNKNOWN_DESTINATION_MEMBER' | 'NO_CORRIDOR' | 'UNSUPPORTED_CURRENCY'
  | 'INVALID_AMOUNT' | 'INVALID_REASON' | 'INVALID_REFERENCE' | 'REFERENCE_REUSED' | 'INSUFFICIENT_PREFUND';
type Refusal = { ok: false; error: PrefundAdminError; detail: string };

export interface MovementRequest {
  direction: repo.Direction;
  sourceMemberId: string;
  destinationMemberId: string;
  currency: string;
  /** Decimal text, e.g. "1000.00". */
  amount: string;
  reason: string;
  /** The operator's reference; one is made up when absent. */
  operatorReference?: string | undefined;
}

export interface PrefundBalance { currency: string; balance: string; availableBalance: string; reserved: string }
export type MovementResult = { ok: true; movement: repo.Movement; replayed: boolean; balance: PrefundBalance } | Refusal;

export const REASON_LENGTH_MAX = 500;
const REFERENCE = /^[A-Za-z0-9._:-]{1,100}$/;
const AMOUNT_TEXT = /^\d{1,15}(\.\d{1,6})?$/;
const TRANSFER_REASONS = { CREDIT: 'OPERATOR_PREFUND_CREDIT', DEBIT: 'OPERATOR_PREFUND_DEBIT' } as const;

const refuse = (error: PrefundAdminError, detail: string): Refusal => ({ ok: false, error, detail });

/** Thrown inside the transaction to roll the movement row back when the ledger refuses it. */
class RolledBack extends Error {
  readonly refusal: Refusal;
  constructor(refusal: Refusal) {
    super(refusal.error);
    this.refusal = refusal;
  }
}

/** The pair and currency exist and may hold prefund; undefined when so. */
async function checkParties(db: Queryable, sourceMemberId: string, destinationMemberId: string, currency: string): Promise<Refusal | undefined> {
  const source = await members.findMember(db, sourceMemberId);
  if (source?.kind !== 'SOURCE') return refuse('UNKNOWN_SOURCE_MEMBER', `no source member ${sourceMemberId}`);
  const destination = await members.findMember(db, destinationMemberId);
  if (destination?.kind !== 'DESTINATION') return refuse('UNKNOWN_DESTINATION_MEMBER', `no destination member ${destinationMemberId}`);
  const corridors = (await members.listCorridors(db, sourceMemberId)).filter((c) => c.destinationMemberId === destinationMemberId);
  if (corridors.length === 0) return refuse('NO_CORRIDOR', `${sourceMemberId} has no corridor to ${destinationMemberId} (corridors set first)`);
  if (!destination.currencies.includes(currency)) return refuse('UNSUPPORTED_CURRENCY', `${destinationMemberId} holds ${destination.currencies.join(', ')}`);
  return undefined;
}

const sameMovement = (m: repo.Movement, r: MovementRequest, amount: string) =>
  m.direction === r.direction && m.sourceMemberId === r.sourceMemberId && m.destinationMemberId === r.destinationMemberId && m.currency === r.currency && m.amount === amount;

export async function prefundBalance(db: Queryable, sourceMemberId: string, destinationMemberId: string, currency: string): Promise<PrefundBalance> {
  const spec = prefundAccount(sourceMemberId, destinationMemberId, currency);
  const b = (await balances(db, [spec])).get(accountKey(spec))!;
  return { currency, balance: formatMinor(b.balance, currency), availableBalance: formatMinor(b.available, currency), reserved: formatMinor(b.reserved, currency) };
}

/** The balance as it stood `minor` earlier (the transfer is posted: reservations are unchanged). */
function shifted(b: PrefundBalance, minor: bigint): PrefundBalance {
  const move = (text: string) => {
    const parsed = parseAmount(text, b.currency);
    if (!parsed.ok) throw new Error(`balance ${text} is not exact in ${b.currency}`);
    return formatMinor(parsed.minor + minor, b.currency);
  };
  return { ...b, balance: move(b.balance), availableBalance: move(b.availableBalance) };
}

export async function movePrefund(deps: { db: Db; actor: string }, request: MovementRequest): Promise<MovementResult> {
  const { sourceMemberId, destinationMemberId, currency, direction } = request;
  const reference = request.operatorReference ?? `opr_${randomUUID()}`;
  if (!REFERENCE.test(reference)) return refuse('INVALID_REFERENCE', '1 to 100 of A-Z a-z 0-9 . _ : -');
  const reason = request.reason.trim();
  if (reason.length === 0 || reason.length > REASON_LENGTH_MAX) return refuse('INVALID_REASON', `1 to ${REASON_LENGTH_MAX} characters saying why`);
  const wrongParties = await checkParties(deps.db, sourceMemberId, destinationMemberId, currency);
  if (wrongParties) return wrongParties;
  const parsed = AMOUNT_TEXT.test(request.amount) ? parseAmount(request.amount, currency) : undefined;
  if (!parsed?.ok) return refuse('INVALID_AMOUNT', `a positive decimal with at most the decimals of ${currency}, e.g. 1000.00`);
  if (parsed.minor <= 0n) return refuse('INVALID_AMOUNT', 'must be above 0');
  const amount = formatMinor(parsed.minor, currency);
  try {
    return await withTransaction(deps.db, async (client): Promise<MovementResult> => {
      const transferId = randomUUID();
      const movement = await repo.insertMovement(client, { operatorReference: reference, direction, sourceMemberId, destinationMemberId, currency, amount, reason, actor: deps.actor, transferId });
      if (!movement) {
        const first = (await repo.findMovement(client, reference))!;
        if (!sameMovement(first, request, amount)) return refuse('REFERENCE_REUSED', `${reference} was used for another movement (${first.direction} ${first.amount} ${first.currency} ${first.sourceMemberId} at ${first.destinationMemberId})`);
        return { ok: true, movement: first, replayed: true, balance: await prefundBalance(client, sourceMemberId, destinationMemberId, currency) };
      }
      const prefund = prefundAccount(sourceMemberId, destinationMemberId, currency);
      const funding = fundingAccount(destinationMemberId, currency);
      const [result] = await createTransfers(client, [[{
        transferId,
        debit: direction === 'CREDIT' ? funding : prefund,
        credit: direction === 'CREDIT' ? prefund : funding,
        amount: parsed.minor,
        reason: TRANSFER_REASONS[direction],
        reference: `operator-prefund:${reference}`,
      }]], { twoPhase: false });
      if (!result!.ok) throw new RolledBack(refuse('INSUFFICIENT_PREFUND', `would take the prefund below what payouts have reserved`));
      const balance = await prefundBalance(client, sourceMemberId, destinationMemberId, currency);
      const moved = direction === 'CREDIT' ? parsed.minor : -parsed.minor;
      await auditorFor(deps.actor)(client, `prefund.${direction.toLowerCase()}`, `prefund:${sourceMemberId}:${destinationMemberId}:${currency}`,
        { balance: shifted(balance, -moved) }, { ...movement, balance });
      return { ok: true, movement, replayed: false, balance };
    });
  } catch (error) {
    if (error instanceof RolledBack) return error.refusal;
    throw error;
  }
}
