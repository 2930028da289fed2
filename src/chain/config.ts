// The chain rail's configuration from the environment, validated once at start: a bad value stops
// the process with a message naming the variable. The treasury key is read here (preferably from
// a file, CHAIN_TREASURY_KEY_FILE) and kept in a TreasuryKey whose text forms are redacted, so a
// logged or serialised config never shows it.
import fs from 'node:fs';
import { Type, type Static } from 'typebox';
import { Ajv } from 'ajv';
import type { Address, Hex } from 'viem';
import { ConfigError } from '../platform/config.ts';

const EnvSchema = Type.Object({
  CHAIN_RPC_URL: Type.String({ pattern: '^(https?|wss?)://', maxLength: 2000 }),
  CHAIN_ID: Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1 }),
  CHAIN_TOKEN_ADDRESS: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
  CHAIN_CONFIRMATIONS: Type.Integer({ minimum: 1, maximum: 1000, default: 3 }),
  CHAIN_TREASURY_KEY: Type.Optional(Type.String({ pattern: '^(0x)?[0-9a-fA-F]{64}$' })),
  CHAIN_TREASURY_KEY_FILE: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  CHAIN_REPLACE_AFTER_MS: Type.Integer({ minimum: 1000, maximum: 86_400_000, default: 60_000 }),
  CHAIN_POLL_MS: Type.Integer({ minimum: 50, maximum: 600_000, default: 4000 }),
});
type Env = Static<typeof EnvSchema>;

/** A private key that never shows itself in logs, JSON or util.inspect. */
export class TreasuryKey {
  readonly #hex: Hex;
  constructor(hex: Hex) {
    this.#hex = hex;
  }
  reveal(): Hex {
    return this.#hex;
  }
  toString(): string {
    return '[redacted]';
  }
  toJSON(): string {
    return '[redacted]';
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'TreasuryKey [redacted]';
  }
}

export interface ChainConfig {
  rpcUrl: string;
  /** The chain the node must be on (EIP-155 id); checked against eth_chainId at start. */
  chainId: number;
  tokenAddress: Address;
  /** Blocks on top of (and including) the transfer's block before it is final. */
  confirmations: number;
  treasuryKey: TreasuryKey;
  /** How long a broadcast transaction may stay unmined before a same-nonce replacement is sent. */
  replaceAfterMs: number;
  /** How often a waiting caller asks the node again. */
  pollMs: number;
}

const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, strict: false });
const validateEnv = ajv.compile<Env>(EnvSchema);

/** Reads and checks the CHAIN_* variables. Throws ConfigError naming the first bad one. */
export function loadChainConfig(source: NodeJS.ProcessEnv = process.env): ChainConfig {
  const env: Record<string, unknown> = {};
  for (const name of Object.keys(EnvSchema.properties)) {
    const value = source[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  if (!validateEnv(env)) {
    const error = validateEnv.errors?.[0];
    const name = error?.instancePath.replace(/^\//, '') || String(error?.params?.['missingProperty'] ?? 'environment');
    // the key's value is never echoed
    const given = source[name] === undefined || name === 'CHAIN_TREASURY_KEY' ? '' : ` (got ${JSON.stringify(source[name])})`;
    throw new ConfigError(`Invalid configuration: ${name} ${error?.message ?? 'is invalid'}${given}`);
  }
  const checked = env as Env;
  return {
    rpcUrl: checked.CHAIN_RPC_URL,
    chainId: checked.CHAIN_ID,
    tokenAddress: checked.CHAIN_TOKEN_ADDRESS as Address,
    confirmations: checked.CHAIN_CONFIRMATIONS,
    treasuryKey: readTreasuryKey(checked),
    replaceAfterMs: checked.CHAIN_REPLACE_AFTER_MS,
    pollMs: checked.CHAIN_POLL_MS,
  };
}

const KEY = /^(0x)?([0-9a-fA-F]{64})$/;

function readTreasuryKey(env: Env): TreasuryKey {
  if (env.CHAIN_TREASURY_KEY !== undefined && env.CHAIN_TREASURY_KEY_FILE !== undefined) {
    throw new ConfigError('Invalid configuration: set one of CHAIN_TREASURY_KEY_FILE and CHAIN_TREASURY_KEY, not both');
  }
  let text = env.CHAIN_TREASURY_KEY;
  if (env.CHAIN_TREASURY_KEY_FILE !== undefined) {
    try {
      text = fs.readFileSync(env.CHAIN_TREASURY_KEY_FILE, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(`Invalid configuration: CHAIN_TREASURY_KEY_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (!KEY.test(text)) throw new ConfigError('Invalid configuration: CHAIN_TREASURY_KEY_FILE must hold 32 bytes of hex (64 hex digits)');
  }
  if (text === undefined) throw new ConfigError('Invalid configuration: CHAIN_TREASURY_KEY_FILE (or CHAIN_TREASURY_KEY) is required');
  return new TreasuryKey(`0x${KEY.exec(text)![2]!.toLowerCase()}`);
}

/** The node must be on the configured chain: signing for another chain id is refused at start. */
export async function checkChainId(chainId: number, nodeChainId: () => Promise<number>): Promise<void> {
  const actual = await nodeChainId();
  if (actual !== chainId) {
    throw new ConfigError(`Invalid configuration: CHAIN_ID is ${chainId} but the node at CHAIN_RPC_URL is on chain ${actual}`);
  }
}
