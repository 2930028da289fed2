// `npm run admin -- prefund ...`: prefund moved by operators with a reason, and the balances.
// Each movement is one ledger transfer, audited, and idempotent by its operator reference.
import os from 'node:os';
import type { Db } from '../platform/database/pool.ts';
import { findMember } from '../members/repo.ts';
import { movePrefund, prefundBalance, type PrefundAdminError } from '../prefund/operator.ts';
import { CommandError, UsageError } from './errors.ts';

export const PREFUND_USAGE = `  prefund credit --source MEMBER_ID --destination MEMBER_ID --currency CCY --amount 1000.00
                 --reason TEXT [--reference REF] [--actor NAME]
  prefund debit  (the same options; never below what payouts have reserved)
  prefund show --source MEMBER_ID --destination MEMBER_ID
  (the same --reference again moves nothing and says so; without one, a reference is made up and printed)`;

export const PREFUND_COMMANDS = ['prefund credit', 'prefund debit', 'prefund show'];
export const PREFUND_LIST_COMMANDS = ['prefund show'];

interface PrefundArgs {
  source?: string | undefined;
  destination?: string | undefined;
  currency?: string | undefined;
  amount?: string | undefined;
  reason?: string | undefined;
  reference?: string | undefined;
  actor?: string | undefined;
}

const REFUSALS: Record<PrefundAdminError, string> = {
  UNKNOWN_SOURCE_MEMBER: 'UNKNOWN_SOURCE_MEMBER',
  UNKNOWN_DESTINATION_MEMBER: 'UNKNOWN_DESTINATION_MEMBER',
  NO_CORRIDOR: 'NO_CORRIDOR',
  UNSUPPORTED_CURRENCY: 'UNSUPPORTED_CURRENCY',
  INVALID_AMOUNT: 'INVALID_AMOUNT',
  INVALID_REASON: 'INVALID_REASON',
  INVALID_REFERENCE: 'INVALID_REFERENCE',
  REFERENCE_REUSED: 'REFERENCE_REUSED',
  INSUFFICIENT_PREFUND: 'INSUFFICIENT_PREFUND',
};

function need(values: PrefundArgs, name: keyof PrefundArgs): string {
  const value = values[name];
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

async function show(db: Db, values: PrefundArgs): Promise<{ rows: object[] }> {
  const sourceMemberId = need(values, 'source');
  const destination = await findMember(db, need(values, 'destination'));
  if (destination?.kind !== 'DESTINATION') throw new CommandError(`${REFUSALS.UNKNOWN_DESTINATION_MEMBER}: no destination member ${values.destination}`);
  if ((await findMember(db, sourceMemberId))?.kind !== 'SOURCE') throw new CommandError(`${REFUSALS.UNKNOWN_SOURCE_MEMBER}: no source member ${sourceMemberId}`);
  const rows = [];
  for (const currency of destination.currencies) rows.push({ sourceMemberId, destinationMemberId: destination.memberId, ...(await prefundBalance(db, sourceMemberId, destination.memberId, currency)) });
  return { rows };
}

export async function executePrefund(db: Db, command: string, values: PrefundArgs): Promise<{ rows: object[]; note?: string }> {
  if (command === 'prefund show') return show(db, values);
  if (command !== 'prefund credit' && command !== 'prefund debit') throw new UsageError(`unknown command "${command}"`);
  const result = await movePrefund({ db, actor: values.actor ?? os.userInfo().username }, {
    direction: command === 'prefund credit' ? 'CREDIT' : 'DEBIT',
    sourceMemberId: need(values, 'source'),
    destinationMemberId: need(values, 'destination'),
    currency: need(values, 'currency').toUpperCase(),
    amount: need(values, 'amount'),
    reason: need(values, 'reason'),
    operatorReference: values.reference,
  });
  if (!result.ok) throw new CommandError(`${REFUSALS[result.error]}: ${result.detail}`);
  const { movement, balance } = result;
  const row = {
    operatorReference: movement.operatorReference, direction: movement.direction, sourceMemberId: movement.sourceMemberId,
    destinationMemberId: movement.destinationMemberId, currency: movement.currency, amount: movement.amount, reason: movement.reason,
    actor: movement.actor, transferId: movement.transferId, createdAt: movement.createdAt, replayed: result.replayed,
    balance: balance.balance, availableBalance: balance.availableBalance, reserved: balance.reserved,
  };
  const note = result.replayed
    ? `Nothing moved: reference ${movement.operatorReference} was applied already (${movement.createdAt.toISOString()}, by ${movement.actor}).`
    : `${movement.direction === 'CREDIT' ? 'Credited' : 'Debited'} ${movement.amount} ${movement.currency}. Operator reference: ${movement.operatorReference}`;
  return { rows: [row], note };
}
