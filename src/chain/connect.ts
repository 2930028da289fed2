// Wiring from configuration: the node client, the local-key signer and the rail.
import { createPublicClient, http, type PublicClient } from 'viem';
import type { Db } from '../platform/database/pool.ts';
import type { ChainTransfers } from '../settlements/venues.ts';
import type { ChainConfig } from './config.ts';
import { createLocalSigner, type TreasurySigner } from './signer.ts';
import { createChainTransfers } from './transfers.ts';

/** The longest one JSON-RPC call may take; an unanswered call is unclear, never a failure. */
export const RPC_TIMEOUT_MS = 10_000;

/** A client that never retries by itself: a retried broadcast is decided by the rail, not the transport. */
export function createChainClient(rpcUrl: string, pollMs = 4000): PublicClient {
  return createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: RPC_TIMEOUT_MS }), pollingInterval: pollMs, cacheTime: 0 });
}

export async function connectChainTransfers(config: ChainConfig, db: Db, signer: TreasurySigner = createLocalSigner(config.treasuryKey)): Promise<ChainTransfers> {
  const rail = await createChainTransfers({
    db,
    client: createChainClient(config.rpcUrl, config.pollMs),
    signer,
    chainId: config.chainId,
    tokenAddress: config.tokenAddress,
    confirmations: config.confirmations,
    replaceAfterMs: config.replaceAfterMs,
  });
  return { ...rail, pollMs: config.pollMs };
}
