// Test support for the chain rail: a Hardhat node, the embedded PostgreSQL migrated, a 6-decimal
// test stablecoin deployed and minted to the treasury, and rails built on them.
import { erc20Abi, type Address, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { migrate } from '../../src/platform/database/migrate.ts';
import { createPool, type Db } from '../../src/platform/database/pool.ts';
import { workerLogger } from '../../src/platform/jobs.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { TreasuryKey } from '../../src/chain/config.ts';
import { createChainClient } from '../../src/chain/connect.ts';
import { deployTestStablecoin, type DeployedToken } from '../../src/chain/deploy.ts';
import { createLocalSigner, type TreasurySigner } from '../../src/chain/signer.ts';
import { createChainTransfers, type ChainTransfersDependencies } from '../../src/chain/transfers.ts';
import type { ChainTransfers } from '../../src/settlements/venues.ts';
import { DEV_KEYS, LOCAL_CHAIN_ID, startHardhat, type HardhatNode } from './hardhat.ts';
import { startTestDatabase, type TestDatabase } from './database.ts';

export const TOKEN_DECIMALS = 6;
/** 1,000,000.000000 of the token. */
export const TREASURY_UNITS = 1_000_000_000_000n;

export interface ChainWorld {
  node: HardhatNode;
  client: PublicClient;
  database: TestDatabase;
  db: Db;
  token: DeployedToken;
  treasury: Address;
  signer: TreasurySigner;
  /** A rail on a pool of its own (another "process"), with options of the test's. */
  rail(options?: Partial<ChainTransfersDependencies>): Promise<ChainTransfers>;
  balanceOf(address: Address): Promise<bigint>;
  /** An owner's call on the token (pause, unpause), through the node's unlocked deployer account. */
  ownerCall(functionName: 'pause' | 'unpause'): Promise<Hex>;
  stop(): Promise<void>;
}

export async function startChainWorld(): Promise<ChainWorld> {
  const [node, database] = await Promise.all([
    startHardhat(),
    startTestDatabase(),
  ]);
  const db = createPool({ url: database.url, max: 8, applicationName: 'chain-test' });
  await migrate(db, workerLogger(createLogger('silent')));
  const client = createChainClient(node.url, 50);
  const signer = createLocalSigner(new TreasuryKey(DEV_KEYS.treasury));
  const treasury = signer.address;
  const token = await deployTestStablecoin(client, node.url, {
    deployerKey: DEV_KEYS.deployer, chainId: LOCAL_CHAIN_ID, symbol: 'TUSD', decimals: TOKEN_DECIMALS, mint: [{ to: treasury, units: TREASURY_UNITS }],
  });
  const pools: Db[] = [db];
  return {
    node, client, database, db, token, treasury, signer,
    async rail(options = {}) {
      const pool = createPool({ url: database.url, max: 4, applicationName: 'chain-test-rail' });
      pools.push(pool);
      return createChainTransfers({
        db: pool, client: createChainClient(node.url, 50), signer, chainId: LOCAL_CHAIN_ID, tokenAddress: token.address,
        // no grace for unsent earlier transfers: Hardhat's automining refuses a nonce ahead of a gap
        confirmations: 3, replaceAfterMs: 60_000, gapGraceMs: 0, ...options,
      });
    },
    balanceOf: (address) => client.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [address] }),
    async ownerCall(functionName) {
      const owner = privateKeyToAccount(DEV_KEYS.deployer).address;
      const data = functionName === 'pause' ? '0x8456cb59' : '0x3f4ba83a';
      return node.request<Hex>('eth_sendTransaction', [{ from: owner, to: token.address, data, maxPriorityFeePerGas: '0x2540be400', maxFeePerGas: '0x174876e800' }]);
    },
    async stop() {
      for (const pool of pools) await pool.end();
      await node.stop();
      await database.stop();
    },
  };
}

/** Mines `count` blocks at once. */
export async function mine(world: ChainWorld, count = 1): Promise<void> {
  for (let i = 0; i < count; i++) await world.node.request('evm_mine');
}

/** Sends a plain transaction with the treasury's key outside the rail (the key used elsewhere). */
export async function useTreasuryNonce(world: ChainWorld, nonce: number): Promise<Hex> {
  const fees = await world.client.estimateFeesPerGas();
  const raw = await privateKeyToAccount(DEV_KEYS.treasury).signTransaction({
    type: 'eip1559', chainId: LOCAL_CHAIN_ID, nonce, to: world.treasury, value: 0n, gas: 21_000n,
    maxFeePerGas: fees.maxFeePerGas * 4n, maxPriorityFeePerGas: fees.maxPriorityFeePerGas * 4n,
  });
  return world.client.sendRawTransaction({ serializedTransaction: raw });
}

/** A signer that fails like an unreachable KMS: the transfer stays recorded but unsigned. */
export function failingSigner(world: ChainWorld): TreasurySigner {
  return {
    address: world.signer.address,
    signTransaction: async () => {
      throw new Error('signer unavailable');
    },
  };
}

/** A fresh recipient address per test. */
export function recipient(n: number): Address {
  return `0x${(0xabc000 + n).toString(16).padStart(40, '0')}` as Address;
}
