// Operators' changes to partner connections and partner keys (npm run admin -- partners ...).
// Each change is validated, made under a row lock and audited (actor, time, what, before/after)
// in the same transaction.
import { type Db } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { parsePublicKey, rawPublicKey } from './signatures.ts';
import * as repo from './repo.ts';
import { auditorFor } from '../audit/repo.ts';
import { ok, refuse, type Result } from '../platform/result.ts';
import type { AdminRefusal } from './errors.ts';

export type AdminResult<T> = Result<T, AdminRefusal>;

const KEY_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const BASE_URL_LENGTH_MAX = 500;

/** http(s), no credentials, query or fragment; a trailing slash is dropped. */
export function normaliseBaseUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.search || url.hash) return undefined;
  const normal = url.toString().replace(/\/+$/, '');
  return normal.length <= BASE_URL_LENGTH_MAX ? normal : undefined;
}

function keyView(row: repo.KeyRow) {
  return { keyId: row.keyId, memberId: row.destinationMemberId, publicKey: row.publicKey.toString('base64url'), status: row.status, createdAt: row.createdAt, retiredAt: row.retiredAt };
}
export type KeyView = ReturnType<typeof keyView>;

export function createPartnersAdmin(deps: { db: Db; actor: string }) {
  const audit = auditorFor(deps.actor);

  return {
    async setConnection(memberId: string, baseUrlText: string, enabled: boolean): Promise<AdminResult<repo.ConnectionRow>> {
      const baseUrl = normaliseBaseUrl(baseUrlText);
      if (baseUrl === undefined) return refuse('INVALID_BASE_URL', 'an http(s) URL without credentials, query or fragment');
      return withTransaction(deps.db, async (client) => {
        if ((await repo.memberKind(client, memberId)) !== 'DESTINATION') return refuse('UNKNOWN_DESTINATION_MEMBER');
        const before = await repo.lockConnection(client, memberId);
        const after = await repo.upsertConnection(client, memberId, baseUrl, enabled);
        await audit(client, 'partners.connection.set', `member:${memberId}`, before, after);
        return ok(after);
      });
    },

    async addKey(memberId: string, keyId: string, publicKeyText: string): Promise<AdminResult<KeyView>> {
      if (!KEY_ID.test(keyId)) return refuse('INVALID_KEY_ID', '1 to 100 of A-Z a-z 0-9 . _ : -');
      let raw: Buffer;
      try {
        raw = rawPublicKey(parsePublicKey(publicKeyText));
      } catch (error) {
        return refuse('INVALID_PUBLIC_KEY', (error as Error).message);
      }
      return withTransaction(deps.db, async (client) => {
        if ((await repo.memberKind(client, memberId)) !== 'DESTINATION') return refuse('UNKNOWN_DESTINATION_MEMBER');
        const row = await repo.insertKey(client, keyId, memberId, raw);
        if (!row) return refuse('KEY_ID_TAKEN');
        await audit(client, 'partners.key.add', `key:${keyId}`, null, keyView(row));
        return ok(keyView(row));
      });
    },

    async retireKey(keyId: string): Promise<AdminResult<KeyView>> {
      return withTransaction(deps.db, async (client) => {
        const before = await repo.lockKey(client, keyId);
        if (!before) return refuse('KEY_NOT_FOUND');
        if (before.status === 'RETIRED') return refuse('KEY_ALREADY_RETIRED');
        const after = await repo.retireKey(client, keyId);
        await audit(client, 'partners.key.retire', `key:${keyId}`, keyView(before), keyView(after));
        return ok(keyView(after));
      });
    },

    async listKeys(memberId: string | undefined): Promise<KeyView[]> {
      return (await repo.listKeys(deps.db, memberId)).map(keyView);
    },

    listConnections: () => repo.listConnections(deps.db),
  };
}
