// EVM addresses as EIP-55 writes them: 0x and 40 hex digits whose letters' case is a checksum
// (a letter is upper case when the keccak-256 of the lower-case address has that nibble >= 8).
// A wallet address is money's destination: only the checksummed form is accepted, so a typo is caught.
import { keccak_256 } from '@noble/hashes/sha3.js';

const SHAPE = /^0x[0-9a-fA-F]{40}$/;

/** The EIP-55 form of a 0x-prefixed 40-hex-digit address, or undefined when it has another shape. */
export function checksumAddress(address: string): string | undefined {
  if (!SHAPE.test(address)) return undefined;
  const lower = address.slice(2).toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(lower));
  let out = '0x';
  for (let i = 0; i < lower.length; i += 1) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out;
}

/** Whether the text is an EVM address written with its EIP-55 checksum. */
export const isChecksummedAddress = (address: string): boolean => checksumAddress(address) === address;
