// EVM addresses as EIP-55 writes them: 0x and 40 hex digits whose letters' case is a checksum.
// A wallet address is money's destination: only the checksummed form is accepted, so a typo is caught.
import { getAddress } from 'viem';

const SHAPE = /^0x[0-9a-fA-F]{40}$/;

/** The EIP-55 form of a 0x-prefixed 40-hex-digit address, or undefined when it has another shape. */
export function checksumAddress(address: string): string | undefined {
  if (!SHAPE.test(address)) return undefined;
  return getAddress(address.toLowerCase());
}

/** Whether the text is an EVM address written with its EIP-55 checksum. */
export const isChecksummedAddress = (address: string): boolean => checksumAddress(address) === address;
