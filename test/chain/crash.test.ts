// Crashes of a real process at the two dangerous points of a send, made by killing it (SIGKILL)
// from a JSON-RPC proxy between it and the node: when its eth_sendRawTransaction arrives, before
// or after the node has the bytes. A new rail then resumes from what was recorded: the same
// bytes (same hash), one transaction, the money moved once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import type { Hex } from 'viem';
import { LOCAL_CHAIN_ID, DEV_KEYS } from '../support/hardhat.ts';
import { mine, recipient, startChainWorld, type ChainWorld } from '../support/chain.ts';
import { ROOT } from '../support/service.ts';

let world: ChainWorld;

before(async () => {
  world = await startChainWorld();
});
after(() => world.stop());

type CrashPoint = 'before-node' | 'after-node';

/** Forwards JSON-RPC to the node; on eth_sendRawTransaction kills `victim()` at the crash point. */
async function startCrashingProxy(target: string, point: CrashPoint, victim: () => ChildProcess | undefined): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const isBroadcast = (JSON.parse(body) as { method?: string }).method === 'eth_sendRawTransaction';
    if (isBroadcast && point === 'before-node') {
      victim()?.kill('SIGKILL');
      response.destroy();
      return;
    }
    const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await answer.text();
    if (isBroadcast) {
      victim()?.kill('SIGKILL');
      response.destroy();
      return;
    }
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function sendInChildUntilKilled(point: CrashPoint, reference: string, amount: string, to: string): Promise<void> {
  let child: ChildProcess | undefined;
  const proxy = await startCrashingProxy(world.node.url, point, () => child);
  try {
    child = spawn(path.join(ROOT, 'node_modules/.bin/node'), ['test/chain/fixtures/send-child.ts', reference, amount, to], {
      cwd: ROOT,
      env: {
        ...process.env, DATABASE_URL: world.database.url, CHAIN_RPC_URL: proxy.url, CHAIN_ID: String(LOCAL_CHAIN_ID),
        CHAIN_TOKEN_ADDRESS: world.token.address, CHAIN_TREASURY_KEY: DEV_KEYS.treasury, CHAIN_CONFIRMATIONS: '3',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const [, signal] = await new Promise<[number | null, string | null]>((resolve) => child!.once('exit', (code, sig) => resolve([code, sig])));
    assert.equal(signal, 'SIGKILL', `the child was not killed at the broadcast:\n${output}`);
  } finally {
    await proxy.close();
  }
}

const recorded = async (reference: string) =>
  (await world.db.query(`SELECT t.state, a.tx_hash, a.raw_transaction, a.first_broadcast_at
     FROM chain_transfers t JOIN chain_transfer_attempts a USING (reference) WHERE reference = $1 ORDER BY a.attempt`, [reference])).rows;

test('killed after recording the signed bytes, before the node got them: a new rail broadcasts the same bytes', async () => {
  const to = recipient(200);
  const nonceBefore = await world.client.getTransactionCount({ address: world.treasury });
  await sendInChildUntilKilled('before-node', 'crash-1', '42.000001', to);

  const [row] = await recorded('crash-1');
  assert.equal(row.state, 'SIGNED');
  assert.equal(row.first_broadcast_at, null);
  assert.match(row.raw_transaction, /^0x02/);
  assert.equal(await world.node.request('eth_getTransactionByHash', [row.tx_hash]), null); // nothing reached the node
  assert.equal(await world.client.getTransactionCount({ address: world.treasury }), nonceBefore);

  const rail = await world.rail();
  const resumed = await rail.status('crash-1');
  assert.deepEqual(resumed, { state: 'PENDING', txHash: row.tx_hash, confirmations: 0 });
  const mined = await world.client.getTransactionReceipt({ hash: row.tx_hash as Hex });
  assert.equal(mined.status, 'success');
  assert.equal(await world.balanceOf(to), 42_000_001n);
  assert.equal(await world.client.getTransactionCount({ address: world.treasury }), nonceBefore + 1);
  assert.equal((await recorded('crash-1')).length, 1);
});

test('killed after the node got the bytes, before BROADCAST was recorded: sending again makes no second transaction', async () => {
  const to = recipient(201);
  const nonceBefore = await world.client.getTransactionCount({ address: world.treasury });
  await sendInChildUntilKilled('after-node', 'crash-2', '8', to);

  const [row] = await recorded('crash-2');
  assert.equal(row.state, 'SIGNED');
  assert.equal((await world.client.getTransactionReceipt({ hash: row.tx_hash as Hex })).status, 'success'); // automine: already mined

  const rail = await world.rail();
  const again = await rail.send({ reference: 'crash-2', amount: '8', toAddress: to });
  assert.equal(again.state, 'PENDING');
  assert.ok(again.state === 'PENDING');
  assert.equal(again.txHash, row.tx_hash);
  assert.equal(await world.client.getTransactionCount({ address: world.treasury }), nonceBefore + 1);
  assert.equal(await world.balanceOf(to), 8_000_000n);
  assert.equal(again.confirmations, 1); // its receipt was found: nothing was broadcast again
  assert.equal((await recorded('crash-2')).length, 1);
  await mine(world, 2);
  assert.equal((await rail.status('crash-2')).state, 'CONFIRMED');
});

test('killed after the node got the bytes, still unmined: the same bytes are offered again ("already known"), one transaction', async () => {
  const to = recipient(202);
  const nonceBefore = await world.client.getTransactionCount({ address: world.treasury });
  await world.node.request('evm_setAutomine', [false]);
  try {
    await sendInChildUntilKilled('after-node', 'crash-3', '9.5', to);
    const [row] = await recorded('crash-3');
    assert.equal(row.state, 'SIGNED');
    assert.notEqual(await world.node.request('eth_getTransactionByHash', [row.tx_hash]), null); // in the node's pool

    const rail = await world.rail();
    assert.deepEqual(await rail.send({ reference: 'crash-3', amount: '9.5', toAddress: to }), { state: 'PENDING', txHash: row.tx_hash, confirmations: 0 });
    assert.equal((await recorded('crash-3'))[0].state, 'BROADCAST');
    await mine(world, 3);
    assert.equal((await rail.status('crash-3')).state, 'CONFIRMED');
    assert.equal(await world.client.getTransactionCount({ address: world.treasury }), nonceBefore + 1);
    assert.equal(await world.balanceOf(to), 9_500_000n);
  } finally {
    await world.node.request('evm_setAutomine', [true]);
  }
});
