// Members and corridors, as operators manage them (admin CLI) and the sandbox seed creates them.
import { Ajv } from 'ajv';
import type { Queryable } from '../platform/database/pool.ts';
import { describeValidationError } from '../platform/http/validation.ts';
import * as repo from './repo.ts';
import { CorridorChange, NewMember } from './schemas.ts';

export type MemberError =
  | { error: 'INVALID'; detail: string }
  | { error: 'MEMBER_EXISTS' | 'UNKNOWN_SOURCE_MEMBER' | 'UNKNOWN_DESTINATION_MEMBER' | 'NOT_A_SOURCE_MEMBER' | 'NOT_A_DESTINATION_MEMBER'; detail: string }
  | { error: 'UNSUPPORTED_CURRENCY' | 'AMOUNT_REQUIRED' | 'AMOUNT_NOT_POSITIVE'; detail: string };

export type MemberResult<T> = { ok: true; value: T } | ({ ok: false } & MemberError);

const ajv = new Ajv({ allErrors: false, strict: false });
const checkMember = ajv.compile(NewMember);
const checkCorridor = ajv.compile(CorridorChange);

function invalid(errors: typeof checkMember.errors): { ok: false; error: 'INVALID'; detail: string } {
  return { ok: false, error: 'INVALID', detail: errors?.[0] ? describeValidationError(errors[0], 'body') : 'invalid' };
}

export interface MembersDeps {
  db: Queryable;
  /** Records an operator's change (admin CLI), in the caller's transaction when db is one. */
  audit?: (db: Queryable, action: string, subject: string, before: unknown, after: unknown) => Promise<void>;
}

export function createMembersService(deps: MembersDeps) {
  const { db } = deps;
  return {
    list: (kind?: repo.MemberKind) => repo.listMembers(db, kind),
    listCorridors: (sourceMemberId?: string) => repo.listCorridors(db, sourceMemberId),

    async create(input: NewMember): Promise<MemberResult<repo.Member>> {
      if (!checkMember(input)) return invalid(checkMember.errors);
      if (!(await repo.insertMember(db, input))) return { ok: false, error: 'MEMBER_EXISTS', detail: `memberId: ${input.memberId} exists` };
      await deps.audit?.(db, 'members.create', `member:${input.memberId}`, null, input);
      return { ok: true, value: input };
    },

    /** Opens or changes a corridor; omitted fields keep their current values. */
    async setCorridor(input: CorridorChange): Promise<MemberResult<repo.Corridor>> {
      if (!checkCorridor(input)) return invalid(checkCorridor.errors);
      const source = await repo.findMember(db, input.sourceMemberId);
      if (!source) return { ok: false, error: 'UNKNOWN_SOURCE_MEMBER', detail: `sourceMemberId: ${input.sourceMemberId}` };
      if (source.kind !== 'SOURCE') return { ok: false, error: 'NOT_A_SOURCE_MEMBER', detail: `sourceMemberId: ${source.memberId}` };
      const destination = await repo.findMember(db, input.destinationMemberId);
      if (!destination) return { ok: false, error: 'UNKNOWN_DESTINATION_MEMBER', detail: `destinationMemberId: ${input.destinationMemberId}` };
      if (destination.kind !== 'DESTINATION') {
        return { ok: false, error: 'NOT_A_DESTINATION_MEMBER', detail: `destinationMemberId: ${destination.memberId}` };
      }
      const currency = input.destinationCcy ?? destination.currencies[0]!;
      if (!destination.currencies.includes(currency)) {
        return { ok: false, error: 'UNSUPPORTED_CURRENCY', detail: `destinationCcy: ${destination.memberId} pays out in ${destination.currencies.join(', ')}` };
      }
      const existing = await repo.lockCorridor(db, source.memberId, destination.memberId, currency);
      const maxSettlementAmt = input.maxSettlementAmt ?? existing?.maxSettlementAmt;
      if (maxSettlementAmt === undefined) return { ok: false, error: 'AMOUNT_REQUIRED', detail: 'maxSettlementAmt: required for a new corridor' };
      if (/^0(\.0+)?$/.test(maxSettlementAmt)) return { ok: false, error: 'AMOUNT_NOT_POSITIVE', detail: 'maxSettlementAmt: must be above 0' };
      const corridor = await repo.upsertCorridor(db, {
        sourceMemberId: source.memberId,
        destinationMemberId: destination.memberId,
        destinationCcy: currency,
        active: input.active ?? existing?.active ?? true,
        maxSettlementAmt,
      });
      await deps.audit?.(db, 'corridors.set', `corridor:${source.memberId}:${destination.memberId}:${currency}`, existing ?? null, corridor);
      return { ok: true, value: corridor };
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
