// All SQL of the chain rail. Addresses and hashes are stored in lower case; amounts, fees and
// block numbers as NUMERIC, read back as text and turned into bigint here.
import type { Address, Hex } from 'viem';
import type { Queryable } from '../platform/database/pool.ts';
import { transition, type TransferEvent, type TransferState } from './lifecycle.ts';

export interface NewTransfer {
  reference: string;
  chainId: number;
  fromAddress: Address;
  tokenAddress: Address;
  toAddress: Address;
  amountUnits: bigint;
  nonce: number;
  gas: bigint;
}

export interface TransferRow extends NewTransfer {
  state: TransferState;
  txHash: Hex | null;
  blockNumber: bigint | null;
  reason: string | null;
}

export interface AttemptRow {
  attempt: number;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  rawTransaction: Hex | null;
  txHash: Hex | null;
  firstBroadcastAt: Date | null;
  /** first_broadcast_at is older than the age asked for (measured by the database's clock). */
  overdue: boolean;
}

const TRANSFER_COLUMNS = `reference, chain_id, from_address, token_address, to_address, amount_units, nonce, gas, state, tx_hash, block_number, reason`;

function transferOf(row: Record<string, string | null>): TransferRow {
  return {
    reference: row['reference']!,
    chainId: Number(row['chain_id']),
    fromAddress: row['from_address'] as Address,
    tokenAddress: row['token_address'] as Address,
    toAddress: row['to_address'] as Address,
    amountUnits: BigInt(row['amount_units']!),
    nonce: Number(row['nonce']),
    gas: BigInt(row['gas']!),
    state: row['state'] as TransferState,
    txHash: row['tx_hash'] as Hex | null,
    blockNumber: row['block_number'] === null ? null : BigInt(row['block_number']!),
    reason: row['reason'] ?? null,
  };
}

export async function findTransfer(q: Queryable, reference: string, lock = false): Promise<TransferRow | undefined> {
  const { rows } = await q.query(`SELECT ${TRANSFER_COLUMNS} FROM chain_transfers WHERE reference = $1${lock ? ' FOR UPDATE' : ''}`, [reference]);
  return rows[0] === undefined ? undefined : transferOf(rows[0]);
}

/** Attempts newest first; `overdue` says whether each was first broadcast more than `ageMs` ago. */
export async function listAttempts(q: Queryable, reference: string, ageMs: number): Promise<AttemptRow[]> {
  const { rows } = await q.query(
    `SELECT attempt, max_fee_per_gas, max_priority_fee_per_gas, raw_transaction, tx_hash, first_broadcast_at,
            coalesce(first_broadcast_at < now() - make_interval(secs => $2::numeric / 1000), false) AS overdue
       FROM chain_transfer_attempts WHERE reference = $1 ORDER BY attempt DESC`,
    [reference, ageMs],
  );
  return rows.map((row) => ({
    attempt: Number(row.attempt),
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    rawTransaction: row.raw_transaction,
    txHash: row.tx_hash,
    firstBroadcastAt: row.first_broadcast_at,
    overdue: row.overdue,
  }));
}

/** Creates the account's nonce row from the node's pending nonce unless a process already did. */
export async function initialiseNonce(q: Queryable, chainId: number, address: Address, pendingNonce: number): Promise<void> {
  await q.query(`INSERT INTO chain_nonces (chain_id, address, next_nonce) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [chainId, address.toLowerCase(), pendingNonce]);
}

/** Locks the account's nonce row until the transaction ends and returns the next nonce. */
export async function lockNextNonce(q: Queryable, chainId: number, address: Address): Promise<number> {
  const { rows } = await q.query(`SELECT next_nonce FROM chain_nonces WHERE chain_id = $1 AND address = $2 FOR UPDATE`, [chainId, address.toLowerCase()]);
  if (rows[0] === undefined) throw new Error(`no nonce row for ${address} on chain ${chainId}`);
  return Number(rows[0].next_nonce);
}

export async function setNextNonce(q: Queryable, chainId: number, address: Address, nextNonce: number): Promise<void> {
  const { rowCount } = await q.query(`UPDATE chain_nonces SET next_nonce = $3 WHERE chain_id = $1 AND address = $2 AND next_nonce < $3`, [chainId, address.toLowerCase(), nextNonce]);
  if (rowCount !== 1) throw new Error(`nonce of ${address} did not advance to ${nextNonce}`);
}

/** Records the intent (PREPARED); false when the reference is already recorded. */
export async function insertTransfer(q: Queryable, t: NewTransfer): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO chain_transfers (reference, chain_id, from_address, token_address, to_address, amount_units, nonce, gas, state)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'PREPARED') ON CONFLICT (reference) DO NOTHING`,
    [t.reference, t.chainId, t.fromAddress.toLowerCase(), t.tokenAddress.toLowerCase(), t.toAddress.toLowerCase(), t.amountUnits.toString(), t.nonce, t.gas.toString()],
  );
  return rowCount === 1;
}

/** Records the fees of an attempt before it is signed; false when that attempt number exists. */
export async function insertAttempt(q: Queryable, reference: string, attempt: number, fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO chain_transfer_attempts (reference, attempt, max_fee_per_gas, max_priority_fee_per_gas) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
    [reference, attempt, fees.maxFeePerGas.toString(), fees.maxPriorityFeePerGas.toString()],
  );
  return rowCount === 1;
}

/** Records an attempt's signed bytes unless some were already recorded (the first recorded wins). */
export async function recordSigned(q: Queryable, reference: string, attempt: number, raw: Hex, hash: Hex): Promise<void> {
  await q.query(
    `UPDATE chain_transfer_attempts SET raw_transaction = $3, tx_hash = $4, signed_at = now()
      WHERE reference = $1 AND attempt = $2 AND raw_transaction IS NULL`,
    [reference, attempt, raw.toLowerCase(), hash.toLowerCase()],
  );
}

export async function recordBroadcast(q: Queryable, reference: string, attempt: number): Promise<void> {
  await q.query(
    `UPDATE chain_transfer_attempts SET first_broadcast_at = coalesce(first_broadcast_at, now())
      WHERE reference = $1 AND attempt = $2 AND raw_transaction IS NOT NULL`,
    [reference, attempt],
  );
}

/**
 * Applies a move of the lifecycle table if the transfer is still in `from`; returns whether it
 * moved (false: another process moved it first).
 */
export async function moveTransfer(
  q: Queryable,
  reference: string,
  from: TransferState,
  event: TransferEvent,
  detail: { txHash?: Hex | null; blockNumber?: bigint; reason?: string } = {},
): Promise<boolean> {
  const to = transition(from, event);
  if (to === undefined) throw new Error(`no move from ${from} on ${event}`);
  const { rowCount } = await q.query(
    `UPDATE chain_transfers SET state = $3, tx_hash = coalesce($4, tx_hash), block_number = coalesce($5, block_number),
            reason = coalesce($6, reason), updated_at = now()
      WHERE reference = $1 AND state = $2`,
    [reference, from, to, detail.txHash?.toLowerCase() ?? null, detail.blockNumber?.toString() ?? null, detail.reason ?? null],
  );
  return rowCount === 1;
}

/** The account's transfers below `nonce` that were never broadcast (PREPARED or SIGNED), oldest first. */
export async function listUnsentBefore(q: Queryable, chainId: number, address: Address, nonce: number, limit: number, olderThanMs: number): Promise<string[]> {
  const { rows } = await q.query(
    `SELECT reference FROM chain_transfers
      WHERE chain_id = $1 AND from_address = $2 AND nonce < $3 AND state IN ('PREPARED', 'SIGNED')
        AND created_at <= clock_timestamp() - make_interval(secs => $5::float8 / 1000)
      ORDER BY nonce LIMIT $4`,
    [chainId, address.toLowerCase(), nonce, limit, olderThanMs],
  );
  return rows.map((row) => row.reference as string);
}

/** Units of the account's transfers of this token not finished yet (recorded, perhaps on their way). */
export async function unfinishedUnits(q: Queryable, chainId: number, address: Address, tokenAddress: Address): Promise<{ count: number; units: bigint }> {
  const { rows } = await q.query(
    `SELECT count(*)::int AS count, coalesce(sum(amount_units), 0)::text AS units FROM chain_transfers
      WHERE chain_id = $1 AND from_address = $2 AND token_address = $3 AND state IN ('PREPARED', 'SIGNED', 'BROADCAST')`,
    [chainId, address.toLowerCase(), tokenAddress.toLowerCase()],
  );
  return { count: rows[0].count, units: BigInt(rows[0].units) };
}
