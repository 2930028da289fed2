// The ERC-20 the rail moves: its decimals and symbol read from the contract, and exact conversion
// between the decimal text the settlement pipeline speaks and the token's integer units. An amount
// with more significant fractional digits than the token has is refused, never rounded.
import { erc20Abi, type Address, type PublicClient } from 'viem';
import { formatScaled, toScaled } from '../platform/money.ts';
import { refuse, ok, type Result } from '../platform/result.ts';

export interface TokenInfo {
  address: Address;
  symbol: string;
  decimals: number;
}

export async function readTokenInfo(client: PublicClient, address: Address): Promise<TokenInfo> {
  const [decimals, symbol] = await Promise.all([
    client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }),
    client.readContract({ address, abi: erc20Abi, functionName: 'symbol' }),
  ]);
  return { address, symbol, decimals };
}

export type AmountRefusal = 'NOT_A_DECIMAL' | 'NOT_POSITIVE' | 'TOO_MANY_DECIMALS';

const PLAIN_DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** "12.5" with 6 decimals -> 12500000n. Plain decimal text only: no sign, no exponent. */
export function toTokenUnits(amount: string, decimals: number): Result<bigint, AmountRefusal> {
  if (!PLAIN_DECIMAL.test(amount)) return refuse('NOT_A_DECIMAL', `amount ${JSON.stringify(amount)} is not plain decimal text`);
  const units = toScaled(amount, decimals);
  if (units === undefined) return refuse('TOO_MANY_DECIMALS', `amount ${amount} has more than the token's ${decimals} decimals`);
  if (units <= 0n) return refuse('NOT_POSITIVE', `amount ${amount} is not positive`);
  return ok(units);
}

/** 12500000n with 6 decimals -> "12.500000". */
export function fromTokenUnits(units: bigint, decimals: number): string {
  return formatScaled(units, decimals);
}
