// Deploys the test stablecoin (contracts/TestStablecoin.sol, its committed artifact) and mints to
// the treasury: for a local development chain only (`npm run chain`, the tests). Production uses
// the real token's address (CHAIN_TOKEN_ADDRESS).
import { createWalletClient, http, type Address, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import artifact from '../../contracts/TestStablecoin.json' with { type: 'json' };

export const TEST_STABLECOIN_ABI = artifact.abi;

export interface DeployedToken {
  address: Address;
  owner: Address;
}

export async function deployTestStablecoin(
  client: PublicClient,
  rpcUrl: string,
  options: { deployerKey: Hex; chainId: number; symbol: string; decimals: number; mint: Array<{ to: Address; units: bigint }> },
): Promise<DeployedToken> {
  const account = privateKeyToAccount(options.deployerKey);
  const chain = { id: options.chainId, name: 'local', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } };
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl, { retryCount: 0 }) });
  const hash = await wallet.deployContract({
    abi: TEST_STABLECOIN_ABI,
    bytecode: artifact.bytecode as Hex,
    args: [`Test ${options.symbol}`, options.symbol, options.decimals, account.address],
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deployment failed: ${hash}`);
  const address = receipt.contractAddress;
  for (const { to, units } of options.mint) {
    const minted = await wallet.writeContract({ address, abi: TEST_STABLECOIN_ABI, functionName: 'mint', args: [to, units] });
    await client.waitForTransactionReceipt({ hash: minted, pollingInterval: 50 });
  }
  return { address, owner: account.address };
}
