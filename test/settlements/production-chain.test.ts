// Proof: production settlements end to end over a real EVM chain (Hardhat's node, a separate
// process, with the test stablecoin deployed), a price feed process and the reference partner as
// the destination member: the treasury's stablecoin goes on chain to the member's wallet, the
// partner is told, confirms the credit signed, and the prefund is credited at the locked rate.
// Then the service is SIGKILLed with settlements in flight and started again: every settlement
// completes exactly once, the treasury signed exactly one transaction per settlement, and the
// chain's balances equal the ledger's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { freeLoopbackPort } from '../../src/platform/database/embedded.ts';
import { erc20Abi, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createChainClient } from '../../src/chain/connect.ts';
import { deployTestStablecoin } from '../../src/chain/deploy.ts';
import { toTokenUnits } from '../../src/chain/token.ts';
import { checkLedgerFully } from '../../src/ledger/check.ts';
import { SANDBOX_WALLET_ADDRESS } from '../../src/sandbox/world.ts';
import { databaseEnvFor } from '../support/database.ts';
import { DEV_KEYS, LOCAL_CHAIN_ID, startHardhat, type HardhatNode } from '../support/hardhat.ts';
import { token } from '../support/http.ts';
import { spawnPriceFeed, type PriceFeed } from '../support/price-feed.ts';
import { connectReferencePartner, spawnReferencePartner, type ReferencePartner } from '../support/reference-partner.ts';
import { seedForProduction, spawnService, type ChildService } from '../support/service.ts';
import { creditOf, settlementApi, type Json } from '../support/settlements.ts';

const DECIMALS = 6;
const TREASURY_UNITS = 1_000_000n * 10n ** BigInt(DECIMALS);
const WALLET = SANDBOX_WALLET_ADDRESS as Address;

/** Decimal text as the token's units (six decimals), exactly. */
function unitsOf(amount: string): bigint {
  const units = toTokenUnits(amount, DECIMALS);
  assert.ok(units.ok, amount);
  return units.value;
}

let node: HardhatNode;
let feed: PriceFeed;
let partner: ReferencePartner;
let service: ChildService | undefined;
let env: Record<string, string>;
let db: pg.Pool;
let credentials: { clientId: string; secret: string };
let tokenAddress: Address;
const client = () => createChainClient(node.url, 50);
const treasury = privateKeyToAccount(DEV_KEYS.treasury).address;
const balanceOf = (address: Address) => client().readContract({ address: tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [address] });

before(async () => {
  [node, feed] = await Promise.all([startHardhat(), spawnPriceFeed()]);
  const deployed = await deployTestStablecoin(client(), node.url, {
    deployerKey: DEV_KEYS.deployer, chainId: LOCAL_CHAIN_ID, symbol: 'USDC', decimals: DECIMALS, mint: [{ to: treasury, units: TREASURY_UNITS }],
  });
  tokenAddress = deployed.address;
  // blocks keep coming (confirmations), and several transfers share one
  await node.request('evm_setAutomine', [false]);
  await node.request('evm_setIntervalMining', [300]);
  const seeded = await seedForProduction(['settlements']);
  credentials = seeded.credentials;
  env = {
    ...seeded.env, WORKERS: '4', PORT: String(await freeLoopbackPort()), PARTNER_CONNECTIONS_REFRESH_MS: '200',
    RATE_FEED_URL: feed.url, RATE_FEED_CACHE_MS: '0',
    CHAIN_RPC_URL: node.url, CHAIN_ID: String(LOCAL_CHAIN_ID), CHAIN_TOKEN_ADDRESS: tokenAddress, CHAIN_TREASURY_KEY: DEV_KEYS.treasury,
    CHAIN_CONFIRMATIONS: '2', CHAIN_POLL_MS: '100',
  };
  service = await spawnService(env);
  partner = await spawnReferencePartner({ serviceUrl: service.url });
  const url = (await databaseEnvFor(seeded.dataDir))['DATABASE_URL']
    ?? (JSON.parse(await fs.readFile(path.join(seeded.dataDir, 'runtime.json'), 'utf8')) as { url: string }).url;
  db = new pg.Pool({ connectionString: url, max: 3 });
  db.on('error', () => undefined); // idle connections may end when the killed service's database restarts
  await connectReferencePartner(db, partner);
});

after(async () => {
  await db?.end();
  await service?.stop();
  await partner?.stop();
  await feed?.stop();
  await node?.stop();
});

async function settle(amount: string): Promise<Json> {
  const auth = await token(service!.url, { ...credentials, scope: 'settlements' });
  return settlementApi(service!.url, auth).settle('PARTNER_MX', { settlementAmt: Number(amount) });
}

async function statuses(ids: string[]): Promise<Map<string, { status: string; received: string | null; rate: string; amount: string }>> {
  const { rows } = await db.query<{ id: string; status: string; received: string | null; rate: string; amount: string }>(
    `SELECT settlement_id AS id, settlement_status AS status, settlement_amt_received::numeric(24, 2)::text AS received, rate::text AS rate, settlement_amt::numeric(24, 2)::text AS amount
       FROM settlements WHERE settlement_id = ANY($1)`, [ids]);
  return new Map(rows.map((r) => [r.id, r]));
}

async function waitCompleted(ids: string[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await statuses(ids);
    if ([...now.values()].every((s) => s.status === 'S600_COMPLETED')) return now;
    assert.ok(Date.now() < deadline, `not completed: ${JSON.stringify([...now.values()].filter((s) => s.status !== 'S600_COMPLETED'))}\n${service?.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function expectBooksAgree(expectedSent: bigint) {
  // the chain: the wallet received exactly what the settlements carried, the treasury gave exactly that
  assert.equal(await balanceOf(WALLET), expectedSent);
  assert.equal(await balanceOf(treasury), TREASURY_UNITS - expectedSent);
  // one transaction per settlement from the treasury: its nonce counts every transaction it ever signed that was mined
  const { rows: [sent] } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM chain_transfers`);
  assert.equal(await client().getTransactionCount({ address: treasury }), sent!.n);
  // the ledger: every account, every settlement's legs
  const report = await checkLedgerFully(db);
  assert.deepEqual([report.accountTotals, report.unbalancedCurrencies, report.settlements, report.danglingTransfers].map((l) => l.count), [0, 0, 0, 0], JSON.stringify(report));
}

test('a production settlement goes on chain to the destination member, is confirmed by it, and credits the prefund at the locked rate', { timeout: 90_000 }, async () => {
  const created = await settle('125.50');
  const id = created['settlementId'] as string;
  const done = (await waitCompleted([id], 60_000)).get(id)!;
  assert.equal(done.received, creditOf(done.amount, done.rate));
  const { rows: [confirmation] } = await db.query(`SELECT credited_amount::text AS amount FROM settlement_confirmations WHERE settlement_id = $1`, [id]);
  assert.ok(confirmation, 'the partner confirmed the credit, signed');
  const { rows: [transfer] } = await db.query<{ amount: string }>(`SELECT amount_units::text AS amount FROM chain_transfers WHERE reference = $1`, [`${id}:TRANSFER`]);
  assert.equal(transfer?.amount, String(unitsOf('125.50')));
  await expectBooksAgree(unitsOf('125.50'));
});

test('SIGKILL with settlements in flight, then a restart: each completes exactly once, one transaction each, chain and ledger agree', { timeout: 180_000 }, async () => {
  const amounts = Array.from({ length: 10 }, (_, i) => `${10 + i}.25`);
  const created = await Promise.all(amounts.map((a) => settle(a)));
  const ids = created.map((c) => c['settlementId'] as string);
  await new Promise((r) => setTimeout(r, 400)); // some bought, some signed or broadcast, none final yet
  service!.child.kill('SIGKILL');
  await service!.exited;
  service = await spawnService(env);
  const done = await waitCompleted(ids, 120_000);
  for (const s of done.values()) assert.equal(s.received, creditOf(s.amount, s.rate));
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM settlement_confirmations WHERE settlement_id = ANY($1)`, [ids]);
  assert.equal(rows[0]!.n, ids.length);
  await expectBooksAgree(unitsOf('125.50') + amounts.reduce((sum, a) => sum + unitsOf(a), 0n));
});

test('a transfer the token refuses (paused): nothing left the treasury, so the settlement fails and its funds go back; the books still agree', { timeout: 120_000 }, async () => {
  const owner = privateKeyToAccount(DEV_KEYS.deployer).address;
  const ownerCall = async (data: `0x${string}`) => {
    const hash = await node.request<`0x${string}`>('eth_sendTransaction', [{ from: owner, to: tokenAddress, data }]);
    await client().waitForTransactionReceipt({ hash, pollingInterval: 50 });
  };
  const walletBefore = await balanceOf(WALLET);
  await ownerCall('0x8456cb59'); // pause()
  try {
    const id = (await settle('40.00'))['settlementId'] as string;
    const deadline = Date.now() + 60_000;
    let state: { status: string; parked: boolean } | undefined;
    for (;;) {
      const { rows: [row] } = await db.query<{ status: string; parked: boolean }>(
        `SELECT s.settlement_status AS status, EXISTS (SELECT 1 FROM settlement_reviews r WHERE r.settlement_id = s.settlement_id AND r.resolved_at IS NULL) AS parked
           FROM settlements s WHERE s.settlement_id = $1`, [id]);
      state = row;
      if (state && (state.status === 'S700_FAILED' || state.parked)) break;
      if (Date.now() >= deadline) {
        const dbg = await db.query(`SELECT reference, state, nonce, tx_hash, reason FROM chain_transfers`);
        const steps = await db.query(`SELECT * FROM settlement_steps WHERE settlement_id = $1`, [id]);
        const jobs = await db.query(`SELECT t.identifier, j.run_at, j.attempts, j.last_error FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id`);
        assert.fail(JSON.stringify({ state, chain: dbg.rows, steps: steps.rows, jobs: jobs.rows }, null, 1));
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(state, { status: 'S700_FAILED', parked: false });
    assert.equal(await balanceOf(WALLET), walletBefore);
    const { rows: legs } = await db.query<{ reason: string }>(`SELECT reason FROM ledger_transfers WHERE reference = $1 ORDER BY created_at, reason`, [id]);
    assert.ok(legs.some((l) => l.reason === 'SETTLEMENT_REFUND'), JSON.stringify(legs));
  } finally {
    await ownerCall('0x3f4ba83a'); // unpause()
  }
  const report = await checkLedgerFully(db);
  assert.deepEqual([report.accountTotals, report.unbalancedCurrencies, report.settlements, report.danglingTransfers].map((l) => l.count), [0, 0, 0, 0], JSON.stringify(report));
});
