// The chain rail (ChainTransfers, settlements/venues.ts) on an EVM chain: an ERC-20 transfer from
// the treasury per reference, crash-safe. Why each step is safe:
//
// 1. Intent (PREPARED). Fees and gas are read from the node with no lock held; then ONE transaction
//    locks the account's row in chain_nonces (shared by every process; created from the node's
//    pending nonce the first time), records the transfer under its UNIQUE reference with the next
//    nonce (or the node's pending nonce if that is higher: those slots were used by transactions
//    we never recorded), records attempt 1 with its fees, and advances the nonce. Two processes never
//    give out the same nonce, and a reference is recorded once (a second send finds it).
// 2. Sign (SIGNED). The signer is called with no lock held and the recorded parameters only; the
//    bytes and their hash are recorded (the first recorded bytes win) BEFORE anything is broadcast.
//    A crash before that record leaves PREPARED: nothing left the process, signing again with the
//    same nonce is safe.
// 3. Broadcast (BROADCAST). Only recorded bytes are ever broadcast. A crash before or after the
//    node got them leaves SIGNED or BROADCAST; resuming broadcasts the SAME bytes again (same hash),
//    so at most one transaction exists per attempt. "already known" and "nonce too low" answers
//    mean the bytes (or another attempt of ours) reached the node: the receipt lookup settles it;
//    a new nonce is never taken for a recorded transfer.
// 4. Status. The account's mined nonce is read FIRST, then the receipts of every recorded attempt
//    (all share the nonce, so at most one can be mined):
//    - a receipt with success, buried under the required confirmations: CONFIRMED (the money moved);
//    - a receipt with status reverted: IN_DOUBT. The fee was spent and the token did not move, but
//      whether to try again is an operator's call (the revert's cause may persist), never ours;
//    - no receipt while the mined nonce is past ours: the slot was filled by a transaction we did
//      not record (the key was used elsewhere, or a receipt vanished in a reorganisation): IN_DOUBT.
//      (Reading the nonce before the receipts closes the race where ours is mined in between.)
//    - no receipt, nonce not reached: pending. The latest attempt is broadcast again (a node that
//      dropped it takes it back); once it has been out longer than replaceAfterMs it is REPLACED:
//      a new attempt with the SAME nonce and both fees raised by at least 12.5% is recorded, then
//      signed and recorded, then broadcast. Whichever attempt is mined, only one can be.
// 5. NOT_SENT is said only when it is proven: the transfer is still PREPARED (no bytes were ever
//    recorded, so none were ever broadcast) and the account's mined nonce is past its nonce, so no
//    transaction of it can ever be mined. The move is a compare-and-set from PREPARED: a process
//    that recorded signed bytes in the meantime wins, and then its bytes are what count.
// 6. Nonce gaps. A PREPARED or SIGNED transfer that nobody resumes would hold every later nonce of
//    the account. So every send and status of a transfer first finishes (signs and broadcasts)
//    the account's older transfers that were never broadcast and were recorded more than
//    GAP_GRACE_MS ago (younger ones are being sent by their own callers), oldest first; a gap lasts
//    only until the next call touching the account after that grace.
// Reorganisations deeper than the required confirmations are not watched for after CONFIRMED.
import {
  BaseError, encodeFunctionData, ExecutionRevertedError, erc20Abi, isAddress, keccak256, parseTransaction, recoverTransactionAddress, TransactionReceiptNotFoundError,
  type Address, type Hex, type PublicClient, type TransactionReceipt, type TransactionSerializedEIP1559,
} from 'viem';
import type { Db } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { VenueRefusal, type ChainTransfers, type ChainTransferState } from '../settlements/venues.ts';
import { checkChainId } from './config.ts';
import { FINISHED_STATES, transition, type TransferEvent } from './lifecycle.ts';
import * as repo from './repo.ts';
import type { TreasurySigner, TreasuryTransaction } from './signer.ts';
import { readTokenInfo, toTokenUnits, type TokenInfo } from './token.ts';

/** Attempts per transfer (the first and its replacements) by default; past it the last is rebroadcast, not replaced. */
export const ATTEMPTS_MAX = 10;
/** Older never-broadcast transfers finished before a later one, per call. */
const EARLIER_TRANSFERS_MAX = 32;
/**
 * An earlier transfer still unsent this long after its intent was recorded is taken to be left
 * behind (its process died or its signer failed) and is finished by the next call; a younger one is
 * most likely being sent by its own caller right now, and finishing it too would only double the
 * work of every concurrent send.
 */
export const GAP_GRACE_MS = 5_000;
/** Replacement fees: at least +12.5% (geth's and most nodes' minimum bump is 10%). */
const FEE_BUMP_PER_MILLE = 1125n;
/** Gas limit: the node's estimate plus a quarter, for state that changes between estimate and mining. */
const GAS_MARGIN_PER_MILLE = 1250n;

/** The node's answer was not clear (a timeout, an error): nothing is decided, ask `status` again. */
export class ChainNodeError extends Error {
  override name = 'ChainNodeError';
}

export interface ChainTransfersDependencies {
  db: Db;
  client: PublicClient;
  signer: TreasurySigner;
  chainId: number;
  tokenAddress: Address;
  confirmations: number;
  replaceAfterMs: number;
  /** Default ATTEMPTS_MAX: a bound on the fees a stuck transfer can climb to (+12.5% per attempt). */
  attemptsMax?: number;
  /** Default GAP_GRACE_MS: how old an unsent earlier transfer must be before another call finishes it. */
  gapGraceMs?: number;
}

interface Rail extends ChainTransfersDependencies {
  token: TokenInfo;
  address: Address;
}

/** Checks the node's chain id, reads the token, and returns the rail. */
export async function createChainTransfers(deps: ChainTransfersDependencies): Promise<ChainTransfers> {
  await checkChainId(deps.chainId, () => deps.client.getChainId());
  const token = await readTokenInfo(deps.client, deps.tokenAddress);
  const rail: Rail = { ...deps, token, address: deps.signer.address.toLowerCase() as Address };
  return {
    asset: token.symbol,
    send: (transfer) => send(rail, transfer),
    status: (reference) => advance(rail, reference),
  };
}

async function send(rail: Rail, transfer: { reference: string; amount: string; toAddress: string }): Promise<ChainTransferState> {
  const units = toTokenUnits(transfer.amount, rail.token.decimals);
  if (!units.ok) throw new VenueRefusal(units.detail);
  if (!isAddress(transfer.toAddress, { strict: false }) || /^0x0{40}$/.test(transfer.toAddress)) {
    throw new VenueRefusal(`toAddress ${JSON.stringify(transfer.toAddress)} is not an address`);
  }
  if (transfer.reference.length < 1 || transfer.reference.length > 200) throw new VenueRefusal('reference must have 1 to 200 characters');
  const toAddress = transfer.toAddress.toLowerCase() as Address;
  let row = await repo.findTransfer(rail.db, transfer.reference);
  if (row === undefined) {
    await recordIntent(rail, transfer.reference, toAddress, units.value);
    row = (await repo.findTransfer(rail.db, transfer.reference))!;
  }
  if (row.amountUnits !== units.value || row.toAddress !== toAddress) {
    throw new VenueRefusal(`reference ${transfer.reference} was already used for another amount or recipient`);
  }
  return advance(rail, transfer.reference);
}

function transferData(to: Address, units: bigint): Hex {
  return encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, units] });
}

/** Step 1: fees and gas from the node (no lock), then nonce + intent + attempt 1 in one transaction. */
async function recordIntent(rail: Rail, reference: string, toAddress: Address, units: bigint): Promise<void> {
  const data = transferData(toAddress, units);
  const [fees, gasEstimate, pendingNonce] = await Promise.all([
    rail.client.estimateFeesPerGas(),
    rail.client.estimateGas({ account: rail.address, to: rail.token.address, data }),
    rail.client.getTransactionCount({ address: rail.address, blockTag: 'pending' }),
  ]).catch((error: unknown) => {
    // the node ran the transfer and it reverts (a paused token, a blocked recipient, a treasury short of
    // funds): its word that the transfer cannot go now; nothing is recorded or signed, so nothing moved
    if (error instanceof BaseError && error.walk((e) => e instanceof ExecutionRevertedError)) {
      throw new VenueRefusal(`the token refuses the transfer: ${error.shortMessage}`);
    }
    throw new ChainNodeError(`the node could not price the transfer: ${(error as Error).message}`, { cause: error });
  });
  const gas = (gasEstimate * GAS_MARGIN_PER_MILLE) / 1000n;
  await withTransaction(rail.db, async (client) => {
    await repo.initialiseNonce(client, rail.chainId, rail.address, pendingNonce);
    // Slots below the node's pending nonce that we never recorded were used by someone else
    // holding the key: skipping them is safe (none is ours) and keeps the rail from stalling.
    const nonce = Math.max(await repo.lockNextNonce(client, rail.chainId, rail.address), pendingNonce);
    const created = await repo.insertTransfer(client, {
      reference, chainId: rail.chainId, fromAddress: rail.address, tokenAddress: rail.token.address, toAddress, amountUnits: units, nonce, gas,
    });
    if (!created) return; // recorded by a concurrent send: its nonce stands, ours is not taken
    await repo.insertAttempt(client, reference, 1, { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas });
    await repo.setNextNonce(client, rail.chainId, rail.address, nonce + 1);
  });
}

/** Moves a transfer on: finishes older unsent ones of the account, then this one. */
async function advance(rail: Rail, reference: string): Promise<ChainTransferState> {
  const row = await repo.findTransfer(rail.db, reference);
  if (row === undefined) return { state: 'UNKNOWN' };
  if (!FINISHED_STATES.has(row.state)) {
    for (const earlier of await repo.listUnsentBefore(rail.db, rail.chainId, rail.address, row.nonce, EARLIER_TRANSFERS_MAX, rail.gapGraceMs ?? GAP_GRACE_MS)) {
      await step(rail, earlier);
    }
  }
  return step(rail, reference);
}

async function step(rail: Rail, reference: string): Promise<ChainTransferState> {
  const row = (await repo.findTransfer(rail.db, reference))!;
  switch (row.state) {
    case 'CONFIRMED': {
      const head = await nodeCall('read the block number', () => rail.client.getBlockNumber());
      return { state: 'CONFIRMED', txHash: row.txHash!, confirmations: Number(head - row.blockNumber! + 1n), blockNumber: row.blockNumber!.toString() };
    }
    case 'NOT_SENT':
      return { state: 'NOT_SENT', reason: row.reason ?? 'never broadcast' };
    case 'IN_DOUBT':
      return { state: 'IN_DOUBT', txHash: row.txHash, reason: row.reason ?? 'in doubt' };
    case 'PREPARED':
      return stepPrepared(rail, row);
    case 'SIGNED':
    case 'BROADCAST':
      return stepSent(rail, row);
  }
}

async function stepPrepared(rail: Rail, row: repo.TransferRow): Promise<ChainTransferState> {
  const minedNonce = await minedNonceOf(rail);
  if (minedNonce > row.nonce) {
    await settle(rail, row.reference, 'NONCE_TAKEN_UNSIGNED', {
      reason: `never signed, and nonce ${row.nonce} was used by another transaction (the account's mined nonce is ${minedNonce})`,
    });
    return step(rail, row.reference);
  }
  const [first] = await repo.listAttempts(rail.db, row.reference, rail.replaceAfterMs);
  if (first!.rawTransaction === null) await signAttempt(rail, row, first!);
  return step(rail, row.reference);
}

async function stepSent(rail: Rail, row: repo.TransferRow): Promise<ChainTransferState> {
  const minedNonce = await minedNonceOf(rail); // before the receipts: see the top of the file
  const attempts = await repo.listAttempts(rail.db, row.reference, rail.replaceAfterMs);
  for (const attempt of attempts) {
    if (attempt.txHash === null) continue;
    const receipt = await receiptOf(rail, attempt.txHash);
    if (receipt !== undefined) return settleMined(rail, row, receipt);
  }
  if (minedNonce > row.nonce) {
    await settle(rail, row.reference, 'NONCE_TAKEN', {
      txHash: attempts.find((a) => a.txHash !== null)?.txHash ?? null,
      reason: `nonce ${row.nonce} was used, but by none of the ${attempts.length} recorded transactions of this transfer (no receipt)`,
    });
    return step(rail, row.reference);
  }
  let latest = attempts[0]!;
  if (latest.rawTransaction !== null && latest.overdue && latest.attempt < (rail.attemptsMax ?? ATTEMPTS_MAX)) latest = await recordReplacement(rail, row, latest);
  if (latest.rawTransaction === null) latest = await signAttempt(rail, row, latest);
  await broadcast(rail, row, latest);
  return { state: 'PENDING', txHash: latest.txHash, confirmations: 0 };
}

async function settleMined(rail: Rail, row: repo.TransferRow, receipt: TransactionReceipt): Promise<ChainTransferState> {
  if (receipt.status === 'reverted') {
    await settle(rail, row.reference, 'REVERTED', {
      txHash: receipt.transactionHash,
      reason: `the transaction reverted in block ${receipt.blockNumber}: the fee was spent and the token did not move`,
    });
    return step(rail, row.reference);
  }
  const head = await nodeCall('read the block number', () => rail.client.getBlockNumber());
  const confirmations = Number(head - receipt.blockNumber + 1n);
  if (confirmations < rail.confirmations) return { state: 'PENDING', txHash: receipt.transactionHash, confirmations };
  await settle(rail, row.reference, 'MINED', { txHash: receipt.transactionHash, blockNumber: receipt.blockNumber });
  return step(rail, row.reference);
}

/** Applies `event` to the transfer's current state under its row lock, if the lifecycle allows it. */
async function settle(rail: Rail, reference: string, event: TransferEvent, detail: Parameters<typeof repo.moveTransfer>[4]): Promise<void> {
  await withTransaction(rail.db, async (client) => {
    const current = (await repo.findTransfer(client, reference, true))!;
    if (transition(current.state, event) !== undefined) await repo.moveTransfer(client, reference, current.state, event, detail);
  });
}

/** Step 2: signs the attempt's recorded parameters (no lock held), checks and records the bytes. */
async function signAttempt(rail: Rail, row: repo.TransferRow, attempt: repo.AttemptRow): Promise<repo.AttemptRow> {
  const tx: TreasuryTransaction = {
    type: 'eip1559', chainId: row.chainId, nonce: row.nonce, to: row.tokenAddress, value: 0n,
    data: transferData(row.toAddress, row.amountUnits), gas: row.gas,
    maxFeePerGas: attempt.maxFeePerGas, maxPriorityFeePerGas: attempt.maxPriorityFeePerGas,
  };
  const raw = await rail.signer.signTransaction(tx);
  await checkSigned(rail, tx, raw);
  await withTransaction(rail.db, async (client) => {
    await repo.recordSigned(client, row.reference, attempt.attempt, raw, keccak256(raw));
    if (attempt.attempt === 1) await repo.moveTransfer(client, row.reference, 'PREPARED', 'SIGNED');
  });
  // the first recorded bytes win: another process may have recorded its own
  return (await repo.listAttempts(rail.db, row.reference, rail.replaceAfterMs)).find((a) => a.attempt === attempt.attempt)!;
}

/** The signer (perhaps a remote KMS) must have signed exactly what was asked, as the treasury. */
async function checkSigned(rail: Rail, asked: TreasuryTransaction, raw: Hex): Promise<void> {
  const signed = parseTransaction(raw);
  const same = signed.type === 'eip1559' && signed.chainId === asked.chainId && signed.nonce === asked.nonce
    && String(signed.to).toLowerCase() === String(asked.to).toLowerCase() && signed.data === asked.data && signed.gas === asked.gas
    && signed.maxFeePerGas === asked.maxFeePerGas && signed.maxPriorityFeePerGas === asked.maxPriorityFeePerGas && (signed.value ?? 0n) === 0n;
  if (!same) throw new Error('the signer returned a transaction other than the one it was asked to sign');
  const signer = await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerializedEIP1559 });
  if (signer.toLowerCase() !== rail.address) throw new Error(`the signer signed as ${signer}, not as the treasury ${rail.address}`);
}

/** Step 3: broadcasts the attempt's recorded bytes, then records that they went out. */
async function broadcast(rail: Rail, row: repo.TransferRow, attempt: repo.AttemptRow): Promise<void> {
  try {
    await rail.client.sendRawTransaction({ serializedTransaction: attempt.rawTransaction! });
  } catch (error) {
    if (!isAlreadyOut(error)) throw new ChainNodeError(`broadcast of ${attempt.txHash} unclear: ${(error as Error).message}`, { cause: error });
  }
  await withTransaction(rail.db, async (client) => {
    await repo.recordBroadcast(client, row.reference, attempt.attempt);
    await repo.moveTransfer(client, row.reference, 'SIGNED', 'BROADCAST');
  });
}

/** The node's words for "these bytes, or another transaction with this nonce, already reached me". */
const ALREADY_OUT = /already known|known transaction|nonce too low|nonce has already been used|already imported/i;

function isAlreadyOut(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (ALREADY_OUT.test(current.message) || ALREADY_OUT.test(String((current as { details?: unknown }).details ?? ''))) return true;
  }
  return false;
}

/** Records a same-nonce replacement with both fees raised (before it is signed); returns the newest attempt. */
async function recordReplacement(rail: Rail, row: repo.TransferRow, latest: repo.AttemptRow): Promise<repo.AttemptRow> {
  const current = await nodeCall('estimate fees', () => rail.client.estimateFeesPerGas());
  const priority = max(bump(latest.maxPriorityFeePerGas), current.maxPriorityFeePerGas);
  const fees = { maxPriorityFeePerGas: priority, maxFeePerGas: max(bump(latest.maxFeePerGas), current.maxFeePerGas, priority) };
  await withTransaction(rail.db, async (client) => {
    const locked = (await repo.findTransfer(client, row.reference, true))!;
    if (locked.state === 'SIGNED' || locked.state === 'BROADCAST') await repo.insertAttempt(client, row.reference, latest.attempt + 1, fees);
  });
  return (await repo.listAttempts(rail.db, row.reference, rail.replaceAfterMs))[0]!;
}

function bump(fee: bigint): bigint {
  const raised = (fee * FEE_BUMP_PER_MILLE + 999n) / 1000n;
  return raised > fee ? raised : fee + 1n;
}

function max(...values: bigint[]): bigint {
  return values.reduce((a, b) => (a > b ? a : b));
}

async function minedNonceOf(rail: Rail): Promise<number> {
  return nodeCall('read the mined nonce', () => rail.client.getTransactionCount({ address: rail.address, blockTag: 'latest' }));
}

async function receiptOf(rail: Rail, hash: Hex): Promise<TransactionReceipt | undefined> {
  try {
    return await rail.client.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return undefined;
    throw new ChainNodeError(`receipt of ${hash} unclear: ${(error as Error).message}`, { cause: error });
  }
}

async function nodeCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new ChainNodeError(`could not ${what}: ${(error as Error).message}`, { cause: error });
  }
}
