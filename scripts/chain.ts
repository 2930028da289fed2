// `npm run chain`: a local chain to try the chain rail on. Starts Hardhat's node, deploys the test
// stablecoin (6 decimals), mints 1,000,000 to the treasury (Hardhat's development account #1,
// whose key is public and worthless anywhere else), writes that key to a file and prints the
// CHAIN_* variables to use. Runs until Ctrl-C.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { createChainClient } from '../src/chain/connect.ts';
import { deployTestStablecoin } from '../src/chain/deploy.ts';
import { DEV_KEYS, LOCAL_CHAIN_ID, startHardhat } from '../test/support/hardhat.ts';

const DECIMALS = 6;
const node = await startHardhat();
const treasury = privateKeyToAccount(DEV_KEYS.treasury).address;
const token = await deployTestStablecoin(createChainClient(node.url, 100), node.url, {
  deployerKey: DEV_KEYS.deployer, chainId: LOCAL_CHAIN_ID, symbol: 'TUSD', decimals: DECIMALS, mint: [{ to: treasury, units: 1_000_000n * 10n ** BigInt(DECIMALS) }],
});
const keyFile = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'local-chain-')), 'treasury.key');
await fs.writeFile(keyFile, `${DEV_KEYS.treasury}\n`, { mode: 0o600 });
process.stdout.write(`Local chain ready (treasury ${treasury} holds 1000000 TUSD). Use:

CHAIN_RPC_URL=${node.url}
CHAIN_ID=${LOCAL_CHAIN_ID}
CHAIN_TOKEN_ADDRESS=${token.address}
CHAIN_TREASURY_KEY_FILE=${keyFile}
CHAIN_CONFIRMATIONS=1

The node mines a block per transaction; Ctrl-C stops it.
`);
const stop = async () => {
  await node.stop();
  await fs.rm(path.dirname(keyFile), { recursive: true, force: true });
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
