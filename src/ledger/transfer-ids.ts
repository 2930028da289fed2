// Transfer ids derived from what a transfer is: a name-based UUID (RFC 9562 version 5) of its
// reference and its leg (PAYOUT, PAYOUT_FEE, SETTLEMENT_IN, ...). A step run again after a crash
// makes the same id, so the ledger refuses the second movement (primary key, and the unique
// (reference, leg) index of migration 0030) instead of moving the money twice.
import { createHash } from 'node:crypto';

/** This service's namespace for transfer ids (a fixed random UUID; never change it). */
const NAMESPACE = Buffer.from('6f1d2a4e8b3c4d5e9f7a1b2c3d4e5f60', 'hex');

export function legTransferId(reference: string, leg: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(`${reference}\u0000${leg}`, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
