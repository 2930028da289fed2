// `npm run admin -- chain reconcile --ledger AMOUNT`: the treasury's token balance on chain
// against the ledger's figure (chain/reconcile.ts), with the CHAIN_* variables the service uses.
// Exits 1 on a difference, so a scheduler can act on it.
import { privateKeyToAccount } from 'viem/accounts';
import { checkChainId, loadChainConfig } from '../chain/config.ts';
import { createChainClient } from '../chain/connect.ts';
import { reconcileTreasury, ReconcileInputError, type TreasuryReconciliation } from '../chain/reconcile.ts';
import { ConfigError } from '../platform/config.ts';
import type { Db } from '../platform/database/pool.ts';
import { CommandError, UsageError } from './errors.ts';

export const CHAIN_USAGE = `  chain reconcile --ledger AMOUNT   (the treasury's stablecoin balance on chain against the ledger's
                  figure, exact; exits 1 on a difference; reads the CHAIN_* variables)`;

export const CHAIN_COMMANDS = ['chain reconcile'];

export async function executeChainReconcile(db: Db, ledger: string | undefined): Promise<{ report: TreasuryReconciliation; note: string }> {
  if (ledger === undefined) throw new UsageError('chain reconcile needs --ledger AMOUNT');
  try {
    const config = loadChainConfig();
    const client = createChainClient(config.rpcUrl, config.pollMs);
    await checkChainId(config.chainId, () => client.getChainId());
    const treasury = privateKeyToAccount(config.treasuryKey.reveal()).address;
    const report = await reconcileTreasury({ db, client, chainId: config.chainId, tokenAddress: config.tokenAddress, treasury, ledgerAmount: ledger });
    const note = (report.matches ? 'The chain and the ledger agree.' : `Difference on chain - ledger: ${report.difference} ${report.asset}.`)
      + (report.unfinishedTransfers > 0 ? ` ${report.unfinishedTransfers} transfer(s) of ${report.unfinishedAmount} ${report.asset} not final yet.` : '');
    return { report, note };
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ReconcileInputError) throw new CommandError(error.message);
    throw error;
  }
}
