// The treasury's token balance on chain compared with the ledger's figure for it. Transfers the
// rail has recorded but not finished are listed beside the difference: one that is mined but not
// yet confirmed has already left the chain balance while the ledger may still count it.
import { erc20Abi, type Address, type PublicClient } from 'viem';
import type { Queryable } from '../platform/database/pool.ts';
import { unfinishedUnits } from './repo.ts';
import { toScaled } from '../platform/money.ts';
import { fromTokenUnits, readTokenInfo } from './token.ts';

const NON_NEGATIVE_DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export interface TreasuryReconciliation {
  asset: string;
  treasury: Address;
  /** Exact decimal text in the token's unit. */
  onChain: string;
  ledger: string;
  /** onChain - ledger. */
  difference: string;
  matches: boolean;
  unfinishedTransfers: number;
  unfinishedAmount: string;
  blockNumber: string;
}

export class ReconcileInputError extends Error {
  override name = 'ReconcileInputError';
}

export async function reconcileTreasury(input: {
  db: Queryable; client: PublicClient; chainId: number; tokenAddress: Address; treasury: Address; ledgerAmount: string;
}): Promise<TreasuryReconciliation> {
  const token = await readTokenInfo(input.client, input.tokenAddress);
  const ledgerUnits = NON_NEGATIVE_DECIMAL.test(input.ledgerAmount) ? toScaled(input.ledgerAmount, token.decimals) : undefined;
  if (ledgerUnits === undefined) throw new ReconcileInputError(`ledger amount ${JSON.stringify(input.ledgerAmount)} is not a non-negative amount with at most ${token.decimals} decimals`);
  // one block for the balance, so the figure names the moment it is true at
  const blockNumber = await input.client.getBlockNumber();
  const onChain = await input.client.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [input.treasury], blockNumber });
  const unfinished = await unfinishedUnits(input.db, input.chainId, input.treasury, token.address);
  return {
    asset: token.symbol,
    treasury: input.treasury,
    onChain: fromTokenUnits(onChain, token.decimals),
    ledger: fromTokenUnits(ledgerUnits, token.decimals),
    difference: fromTokenUnits(onChain - ledgerUnits, token.decimals),
    matches: onChain === ledgerUnits,
    unfinishedTransfers: unfinished.count,
    unfinishedAmount: fromTokenUnits(unfinished.units, token.decimals),
    blockNumber: blockNumber.toString(),
  };
}
