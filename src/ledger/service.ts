// The ledger's operations. Every function runs inside the caller's transaction (pass the
// transaction client), so a ledger movement commits or rolls back with the state change it
// belongs to. Funds are checked only after the debited accounts are locked.
//
// LOCK ORDER. Every path that changes ledger totals locks ledger_accounts rows (FOR UPDATE), and
// every one of them follows this order, so that no two transactions can wait for each other:
//   1. the domain rows first: a payout (several: one statement, in payout_id order), a settlement;
//   2. then the pending transfers of those references (in transfer_id order); they are only
//      ever locked under their payout's lock, so they are never contended on their own;
//   3. the ledger accounts last, in ascending account_id, all the accounts the transaction will
//      touch in ONE statement (lockInOrder below). A transaction that moves money for several
//      payouts (an answers batch voiding rejected payouts, the expiry sweep) locks the accounts
//      of all of them up front with lockAccountsOf before its first movement. After that it may
//      lock again accounts it holds (a no-op), or accounts with a higher id than all it holds
//      (one created just now), never one below: lockInOrder asserts this in every transaction.
// Posting (postPending) changes no account total and takes no account lock.
// The paths: payout creation batches (reservations), answers batches (posting, and voiding
// rejections), failures, returns and cancellations (apply.ts), the expiry sweep (jobs.ts),
// settlement steps crediting prefund (pipeline.ts), sandbox prefund credits and debits, operators'
// prefund credits and debits (prefund/operator.ts: its movement row first, then the accounts) and the
// sandbox seed. A transaction that loses a race anyway is run again (platform/database/transaction.ts).
import assert from 'node:assert/strict';
import { transactionScope, type Queryable } from '../platform/database/pool.ts';
import { accountKey, mayOverdraw, type AccountSpec } from './accounts.ts';
import * as repo from './repo.ts';

export interface TransferInput {
  transferId: string;
  debit: AccountSpec;
  credit: AccountSpec;
  /** Minor units of the accounts' currency; positive. */
  amount: bigint;
  reason: string;
  /** What the transfer belongs to (a payout id, a settlement id). */
  reference: string;
}

/** Transfers that stand or fall together (a payout's amount and its fee). */
export type TransferGroup = TransferInput[];
export type GroupResult = { ok: true } | { ok: false; error: 'INSUFFICIENT_FUNDS'; accountKey: string };

export interface Balance {
  /** Posted: credits less debits. */
  balance: bigint;
  /** balance less pending (reserved) debits. */
  available: bigint;
  reserved: bigint;
}

const ZERO: repo.TotalsDelta = { debits: 0n, credits: 0n };

function add(deltas: Map<string, repo.TotalsDelta>, accountId: string, change: Partial<repo.TotalsDelta>) {
  const current = deltas.get(accountId) ?? ZERO;
  deltas.set(accountId, { debits: current.debits + (change.debits ?? 0n), credits: current.credits + (change.credits ?? 0n) });
}

/**
 * What a no-overdraft account can still give: its credits less every debit not voided. Such an
 * account never receives a two-phase credit (checked below), so its credits are all posted.
 */
function availableOf(account: repo.AccountRow, delta: repo.TotalsDelta | undefined): bigint {
  const d = delta ?? ZERO;
  return account.creditsCommitted + d.credits - (account.debitsCommitted + d.debits);
}

function checkInput(transfer: TransferInput): void {
  assert.ok(transfer.amount > 0n, `transfer ${transfer.transferId}: amount must be positive`);
  assert.equal(transfer.debit.currency, transfer.credit.currency, `transfer ${transfer.transferId}: one currency`);
  assert.notEqual(accountKey(transfer.debit), accountKey(transfer.credit), `transfer ${transfer.transferId}: two accounts`);
}

/**
 * Creates transfers, group by group: a group whose debits would overdraw an account that may not
 * be overdrawn is refused whole and the next group is tried against what the earlier ones left.
 * `twoPhase` makes them reservations (PENDING) to be posted or voided later; otherwise POSTED now.
 */
export interface TransferOptions {
  twoPhase: boolean;
  /**
   * Account ids the caller already knows (accounts are never deleted, so a committed id stays
   * right); ids looked up here are added to it, and the caller keeps them only once its
   * transaction has committed.
   */
  accountIds?: { known: ReadonlyMap<string, string>; learned: Map<string, string> };
}

async function accountIdsFor(db: Queryable, specs: AccountSpec[], options: TransferOptions): Promise<Map<string, string>> {
  const known = options.accountIds?.known;
  const missing = known ? specs.filter((s) => !known.has(accountKey(s))) : specs;
  const found = missing.length > 0 ? await repo.ensureAccounts(db, missing) : new Map<string, string>();
  for (const [key, id] of found) options.accountIds?.learned.set(key, id);
  return new Map([...(known ?? []), ...found]);
}

const HELD = Symbol('ledger accounts locked by this transaction');

/**
 * Locks the accounts (one statement, ascending account_id) after checking the lock order against
 * what this transaction already holds: accounts it holds may come again, new ones only above the
 * highest it holds. A breach is a bug in the calling path (it could deadlock), so it is thrown.
 */
async function lockInOrder(db: Queryable, accountIds: string[]): Promise<Map<string, repo.AccountRow>> {
  const wanted = [...new Set(accountIds)];
  const scope = transactionScope(db);
  const held = (scope?.get(HELD) as Set<string> | undefined) ?? new Set<string>();
  if (held.size > 0) {
    const highest = [...held].reduce((max, id) => (BigInt(id) > max ? BigInt(id) : max), 0n);
    const below = wanted.filter((id) => !held.has(id) && BigInt(id) < highest);
    assert.deepEqual(below, [], `ledger lock order: accounts ${below.join(', ')} locked after account ${highest}; lock them up front (lockAccountsOf)`);
  }
  const rows = await repo.lockAccounts(db, wanted);
  if (scope) {
    for (const id of wanted) held.add(id);
    scope.set(HELD, held);
  }
  return rows;
}

/**
 * Locks, up front and in one statement, every existing account of the specs: for a transaction
 * that will make several movements (see LOCK ORDER above). Accounts that do not exist yet are
 * created later with higher ids, which the order allows.
 */
export async function lockAccountsOf(db: Queryable, specs: AccountSpec[]): Promise<void> {
  if (specs.length === 0) return;
  const ids = await repo.findAccountIds(db, specs);
  await lockInOrder(db, [...ids.values()]);
}

/** The accounts this transaction holds locked, in the order taken (for tests of the lock order). */
export function heldAccounts(db: Queryable): string[] {
  return [...((transactionScope(db)?.get(HELD) as Set<string> | undefined) ?? [])];
}

/** The groups' transfers, each checked, their ids unique. */
function checkedTransfers(groups: TransferGroup[]): TransferInput[] {
  const all = groups.flat();
  all.forEach(checkInput);
  assert.equal(new Set(all.map((t) => t.transferId)).size, all.length, 'transfer ids are unique');
  return all;
}

/** A transfer as recorded, between the accounts of the ids given. */
function transferRow(t: TransferInput, debitAccountId: string, creditAccountId: string, twoPhase: boolean): repo.TransferRow {
  return {
    transferId: t.transferId, debitAccountId, creditAccountId, amount: t.amount, currency: t.debit.currency,
    state: twoPhase ? 'PENDING' : 'POSTED', twoPhase, reason: t.reason, reference: t.reference,
  };
}

export async function createTransfers(db: Queryable, groups: TransferGroup[], options: TransferOptions): Promise<GroupResult[]> {
  const all = checkedTransfers(groups);
  if (all.length === 0) return [];
  const ids = await accountIdsFor(db, all.flatMap((t) => [t.debit, t.credit]), options);
  const accounts = await lockInOrder(db, [...new Set(all.flatMap((t) => [ids.get(accountKey(t.debit))!, ids.get(accountKey(t.credit))!]))]);
  if (options.twoPhase) {
    for (const t of all) assert.ok(!accounts.get(ids.get(accountKey(t.credit))!)!.noOverdraft, `transfer ${t.transferId}: a no-overdraft account takes posted credits only`);
  }
  const deltas = new Map<string, repo.TotalsDelta>();
  const accepted: repo.TransferRow[] = [];
  const results: GroupResult[] = [];
  for (const group of groups) {
    const trial = new Map(deltas);
    for (const t of group) {
      add(trial, ids.get(accountKey(t.debit))!, { debits: t.amount });
      add(trial, ids.get(accountKey(t.credit))!, { credits: t.amount });
    }
    const overdrawn = group.find((t) => {
      const accountId = ids.get(accountKey(t.debit))!;
      const account = accounts.get(accountId)!;
      return account.noOverdraft && availableOf(account, trial.get(accountId)) < 0n;
    });
    if (overdrawn) {
      results.push({ ok: false, error: 'INSUFFICIENT_FUNDS', accountKey: accountKey(overdrawn.debit) });
      continue;
    }
    for (const [id, delta] of trial) deltas.set(id, delta);
    for (const t of group) accepted.push(transferRow(t, ids.get(accountKey(t.debit))!, ids.get(accountKey(t.credit))!, options.twoPhase));
    results.push({ ok: true });
  }
  await repo.recordTransfers(db, accepted, deltas);
  return results;
}

/** Whether a statement was refused because it would have left a no-overdraft account overdrawn. */
export function isOverdraftRefusal(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23514' && e.constraint === 'ledger_accounts_no_overdraft';
}

/**
 * Reservations (two-phase transfers, PENDING) made ready for a caller's own statement, which
 * writes them with repo.reservationCtes in one round trip: the checks of createTransfers that need
 * no lock. Undefined when the id of an account is not known yet: the caller then takes
 * createTransfers in a transaction, which creates and learns it. There the funds are checked
 * group by group; in the one statement all groups stand or fall together (the no-overdraft
 * constraint refuses the statement, and the caller takes createTransfers for the batch).
 */
export function prepareReservations(groups: TransferGroup[], known: ReadonlyMap<string, string>): repo.TransferRow[] | undefined {
  const rows: repo.TransferRow[] = [];
  for (const t of checkedTransfers(groups)) {
    assert.ok(mayOverdraw(t.credit), `transfer ${t.transferId}: a no-overdraft account takes posted credits only`);
    const debitAccountId = known.get(accountKey(t.debit));
    const creditAccountId = known.get(accountKey(t.credit));
    if (debitAccountId === undefined || creditAccountId === undefined) return undefined;
    rows.push(transferRow(t, debitAccountId, creditAccountId, true));
  }
  return rows;
}

/**
 * Posts the pending transfers of the references. Posting changes no account total (they already
 * count the reservation), so it takes only a share lock on the prefund accounts (which writers and
 * other posts do not wait for: it only orders the post before a statement read) and batches freely.
 */
export async function postPending(db: Queryable, ...references: string[]): Promise<number> {
  await repo.lockForPosting(db, references);
  return repo.postPendingOf(db, references);
}

/** Voids the pending transfers of a reference: the amounts come back out of both accounts' totals. */
async function voidPendingOf(db: Queryable, reference: string): Promise<number> {
  const pending = await repo.lockPendingTransfers(db, reference);
  if (pending.length === 0) return 0;
  // accounts first, in order (LOCK ORDER): a movement's number is taken while its account is held
  await lockInOrder(db, pending.flatMap((t) => [t.debitAccountId, t.creditAccountId]));
  await repo.resolveTransfers(db, pending.map((t) => t.transferId), 'VOIDED');
  const deltas = new Map<string, repo.TotalsDelta>();
  for (const t of pending) {
    add(deltas, t.debitAccountId, { debits: -t.amount });
    add(deltas, t.creditAccountId, { credits: -t.amount });
  }
  await repo.applyTotals(db, deltas);
  return pending.length;
}

export const voidPending = voidPendingOf;

/**
 * Balances of accounts that may not exist yet (zero then), keyed by accountKey. Totals and pending
 * sums come from one statement (one snapshot), so a balance never mixes two moments.
 */
export async function balances(db: Queryable, specs: AccountSpec[]): Promise<Map<string, Balance>> {
  const rows = await repo.readBalances(db, specs);
  const result = new Map<string, Balance>();
  for (const spec of specs) {
    const row = rows.get(accountKey(spec));
    const open = row?.pending ?? ZERO;
    const postedCredits = row ? row.committed.credits - open.credits : 0n;
    const postedDebits = row ? row.committed.debits - open.debits : 0n;
    const balance = postedCredits - postedDebits;
    result.set(accountKey(spec), { balance, available: balance - open.debits, reserved: open.debits });
  }
  return result;
}

export interface LedgerCheck {
  totalsMismatches: string[];
  unbalancedCurrencies: string[];
  crossCurrencyTransfers: string[];
  /** Transfers naming an account that does not exist (no foreign key guards this: migration 0007). */
  danglingTransfers: string[];
}

/** The ledger's invariants, recomputed from the transfers; every list is empty when all is well. */
export async function checkLedger(db: Queryable): Promise<LedgerCheck> {
  return {
    totalsMismatches: await repo.totalsMismatches(db),
    unbalancedCurrencies: await repo.unbalancedCurrencies(db),
    crossCurrencyTransfers: await repo.crossCurrencyTransfers(db),
    danglingTransfers: await repo.danglingTransfers(db),
  };
}
