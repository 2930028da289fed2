// Partner public keys: looked up by key id for each signed request (a retired key is unknown),
// and managed by operators through the admin CLI (partners/admin.ts).
import type { KeyObject } from 'node:crypto';
import type { Queryable } from '../platform/database/pool.ts';
import { publicKeyFromRaw } from './signatures.ts';
import * as repo from './repo.ts';

export interface PartnerKey {
  keyId: string;
  memberId: string;
  publicKey: KeyObject;
}

export function partnerKeyLookup(db: Queryable) {
  return async (keyId: string): Promise<PartnerKey | undefined> => {
    const row = await repo.findKey(db, keyId);
    if (!row || row.status !== 'ACTIVE') return undefined;
    return { keyId, memberId: row.destinationMemberId, publicKey: publicKeyFromRaw(row.publicKey) };
  };
}
