// The chain rail's configuration: each bad variable is named, the key file is read (and preferred
// over nothing else: both at once are refused), and the key never shows in logs or JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { loadChainConfig } from '../../src/chain/config.ts';
import { ConfigError } from '../../src/platform/config.ts';

const KEY = '59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const BASE = { CHAIN_RPC_URL: 'http://127.0.0.1:8545', CHAIN_ID: '31337', CHAIN_TOKEN_ADDRESS: `0x${'ab'.repeat(20)}`, CHAIN_TREASURY_KEY: `0x${KEY}` };

test('defaults: 3 confirmations, replacement after 60 s', () => {
  const config = loadChainConfig(BASE);
  assert.equal(config.chainId, 31337);
  assert.equal(config.confirmations, 3);
  assert.equal(config.replaceAfterMs, 60_000);
  assert.equal(config.treasuryKey.reveal(), `0x${KEY}`);
});

test('a bad or missing variable is refused with its name', () => {
  const cases: Array<[Record<string, string | undefined>, RegExp]> = [
    [{ CHAIN_RPC_URL: undefined }, /CHAIN_RPC_URL/],
    [{ CHAIN_RPC_URL: 'ftp://x' }, /CHAIN_RPC_URL/],
    [{ CHAIN_ID: 'mainnet' }, /CHAIN_ID/],
    [{ CHAIN_TOKEN_ADDRESS: '0x1234' }, /CHAIN_TOKEN_ADDRESS/],
    [{ CHAIN_CONFIRMATIONS: '0' }, /CHAIN_CONFIRMATIONS/],
    [{ CHAIN_REPLACE_AFTER_MS: '10' }, /CHAIN_REPLACE_AFTER_MS/],
    [{ CHAIN_POLL_MS: 'often' }, /CHAIN_POLL_MS/],
    [{ CHAIN_TREASURY_KEY: undefined }, /CHAIN_TREASURY_KEY_FILE \(or CHAIN_TREASURY_KEY\) is required/],
  ];
  for (const [change, message] of cases) {
    assert.throws(() => loadChainConfig({ ...BASE, ...change }), (e: Error) => e instanceof ConfigError && message.test(e.message), JSON.stringify(change));
  }
});

test('a malformed key is refused without echoing it', () => {
  assert.throws(() => loadChainConfig({ ...BASE, CHAIN_TREASURY_KEY: `0x${KEY}ff` }), (e: Error) => {
    assert.match(e.message, /CHAIN_TREASURY_KEY/);
    assert.doesNotMatch(e.message, new RegExp(KEY));
    return true;
  });
});

test('the key file is read; both forms at once are refused; an unreadable file is named', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chain-key-'));
  const file = path.join(dir, 'treasury.key');
  await fs.writeFile(file, `${KEY}\n`, { mode: 0o600 });
  const config = loadChainConfig({ ...BASE, CHAIN_TREASURY_KEY: undefined, CHAIN_TREASURY_KEY_FILE: file });
  assert.equal(config.treasuryKey.reveal(), `0x${KEY}`);
  assert.throws(() => loadChainConfig({ ...BASE, CHAIN_TREASURY_KEY_FILE: file }), /not both/);
  assert.throws(() => loadChainConfig({ ...BASE, CHAIN_TREASURY_KEY: undefined, CHAIN_TREASURY_KEY_FILE: path.join(dir, 'missing') }), /CHAIN_TREASURY_KEY_FILE cannot be read \(ENOENT\)/);
  await fs.writeFile(file, 'not a key');
  assert.throws(() => loadChainConfig({ ...BASE, CHAIN_TREASURY_KEY: undefined, CHAIN_TREASURY_KEY_FILE: file }), /CHAIN_TREASURY_KEY_FILE must hold/);
  await fs.rm(dir, { recursive: true });
});

test('the key never shows in JSON, string or inspect output of the config', () => {
  const config = loadChainConfig(BASE);
  for (const text of [JSON.stringify(config), String(config.treasuryKey), inspect(config, { depth: 5 }), `${config.treasuryKey}`]) {
    assert.doesNotMatch(text, new RegExp(KEY, 'i'));
  }
});
