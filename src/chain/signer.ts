// The treasury's signer. The rail only ever asks it to sign a fully specified transaction (nonce,
// fees, gas, chain id all chosen and recorded beforehand) and never hands it to the node itself,
// so a KMS or HSM signer can replace the local key behind the same interface.
import type { Address, Hex, TransactionSerializableEIP1559 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { TreasuryKey } from './config.ts';

/** An EIP-1559 transaction with every field fixed: what the treasury signs. */
export type TreasuryTransaction = Required<Pick<TransactionSerializableEIP1559<bigint, number>,
  'chainId' | 'nonce' | 'to' | 'data' | 'gas' | 'maxFeePerGas' | 'maxPriorityFeePerGas'>> & { type: 'eip1559'; value: 0n };

export interface TreasurySigner {
  readonly address: Address;
  /** The signed, serialised transaction (the raw bytes eth_sendRawTransaction takes). */
  signTransaction(tx: TreasuryTransaction): Promise<Hex>;
}

/** Signs with a private key held in this process (viem's local account). */
export function createLocalSigner(key: TreasuryKey): TreasurySigner {
  const account = privateKeyToAccount(key.reveal());
  return {
    address: account.address,
    signTransaction: (tx) => account.signTransaction(tx),
  };
}
