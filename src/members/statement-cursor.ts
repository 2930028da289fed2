// Statement cursors. A cursor carries the running balances at its place, so that the next page
// does not sum the history before it (which grows without bound); it is signed (HMAC-SHA-256
// under a key derived from CLIENT_SECRET_KEY), so a client cannot make the service show it
// balances it does not have, and bound to the statement it came from.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { StatementPosition } from '../ledger/statement.ts';

const VERSION = 1;
const MAC_BYTES = 16;
export const CURSOR_LENGTH_MAX = 400;

export interface StatementOf {
  memberId: string;
  destinationMemberId: string;
  currency: string;
}

export interface CursorCodec {
  encode(of: StatementOf, position: StatementPosition): string;
  /** The position, or undefined for a cursor that is malformed, forged or of another statement. */
  decode(of: StatementOf, cursor: string): StatementPosition | undefined;
}

const INTEGER = /^-?[0-9]{1,40}$/;

export function createCursorCodec(clientSecretKey: Buffer): CursorCodec {
  const key = Buffer.from(hkdfSync('sha256', clientSecretKey, Buffer.alloc(0), 'statement-cursors', 32));
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
  return {
    encode(of, p) {
      const payload = Buffer.from(JSON.stringify([VERSION, of.memberId, of.destinationMemberId, of.currency, p.seq,
        String(p.balanceBefore), String(p.availableBefore), String(p.balanceAfter), String(p.availableAfter)])).toString('base64url');
      return `${payload}.${mac(payload).toString('base64url')}`;
    },
    decode(of, cursor) {
      const [payload, tag, ...rest] = cursor.split('.');
      if (payload === undefined || tag === undefined || rest.length > 0 || cursor.length > CURSOR_LENGTH_MAX) return undefined;
      const given = Buffer.from(tag, 'base64url');
      if (given.length !== MAC_BYTES || !timingSafeEqual(given, mac(payload))) return undefined;
      let fields: unknown;
      try {
        fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return undefined;
      }
      if (!Array.isArray(fields) || fields.length !== 9 || fields[0] !== VERSION) return undefined;
      const [, memberId, destinationMemberId, currency, ...numbers] = fields as unknown[];
      if (memberId !== of.memberId || destinationMemberId !== of.destinationMemberId || currency !== of.currency) return undefined;
      if (!numbers.every((n) => typeof n === 'string' && INTEGER.test(n))) return undefined;
      const [seq, balanceBefore, availableBefore, balanceAfter, availableAfter] = numbers as [string, string, string, string, string];
      if (seq.startsWith('-')) return undefined;
      return {
        seq, balanceBefore: BigInt(balanceBefore), availableBefore: BigInt(availableBefore),
        balanceAfter: BigInt(balanceAfter), availableAfter: BigInt(availableAfter),
      };
    },
  };
}
