// Members and corridors, as operators manage them (admin CLI) and the sandbox seed creates them.
import { Ajv } from 'ajv';
import type { Queryable } from '../platform/database/pool.ts';
import { describeValidationError } from '../platform/http/validation.ts';
import { ok, refuse, type Refusal, type Result } from '../platform/result.ts';
import * as repo from './repo.ts';
import type { MemberRefusal } from './errors.ts';
import { CorridorChange, NewMember } from './schemas.ts';

export type MemberResult<T> = Result<T, MemberRefusal>;

const ajv = new Ajv({ allErrors: false, strict: false });
const checkMember = ajv.compile(NewMember);
const checkCorridor = ajv.compile(CorridorChange);

function invalid(errors: typeof checkMember.errors): Refusal<MemberRefusal> {
  return refuse('INVALID', errors?.[0] ? describeValidationError(errors[0], 'body') : 'invalid');
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
      if (!(await repo.insertMember(db, input))) return refuse('MEMBER_EXISTS', `memberId: ${input.memberId} exists`);
      await deps.audit?.(db, 'members.create', `member:${input.memberId}`, null, input);
      return ok(input);
    },

    /** Opens or changes a corridor; omitted fields keep their current values. */
    async setCorridor(input: CorridorChange): Promise<MemberResult<repo.Corridor>> {
      if (!checkCorridor(input)) return invalid(checkCorridor.errors);
      const source = await repo.findMember(db, input.sourceMemberId);
      if (!source) return refuse('UNKNOWN_SOURCE_MEMBER', `sourceMemberId: ${input.sourceMemberId}`);
      if (source.kind !== 'SOURCE') return refuse('NOT_A_SOURCE_MEMBER', `sourceMemberId: ${source.memberId}`);
      const destination = await repo.findMember(db, input.destinationMemberId);
      if (!destination) return refuse('UNKNOWN_DESTINATION_MEMBER', `destinationMemberId: ${input.destinationMemberId}`);
      if (destination.kind !== 'DESTINATION') {
        return refuse('NOT_A_DESTINATION_MEMBER', `destinationMemberId: ${destination.memberId}`);
      }
      const currency = input.destinationCcy ?? destination.currencies[0]!;
      if (!destination.currencies.includes(currency)) {
        return refuse('UNSUPPORTED_CURRENCY', `destinationCcy: ${destination.memberId} pays out in ${destination.currencies.join(', ')}`);
      }
      const existing = await repo.lockCorridor(db, source.memberId, destination.memberId, currency);
      const maxSettlementAmt = input.maxSettlementAmt ?? existing?.maxSettlementAmt;
      if (maxSettlementAmt === undefined) return refuse('AMOUNT_REQUIRED', 'maxSettlementAmt: required for a new corridor');
      if (/^0(\.0+)?$/.test(maxSettlementAmt)) return refuse('AMOUNT_NOT_POSITIVE', 'maxSettlementAmt: must be above 0');
      const corridor = await repo.upsertCorridor(db, {
        sourceMemberId: source.memberId,
        destinationMemberId: destination.memberId,
        destinationCcy: currency,
        active: input.active ?? existing?.active ?? true,
        maxSettlementAmt,
      });
      await deps.audit?.(db, 'corridors.set', `corridor:${source.memberId}:${destination.memberId}:${currency}`, existing ?? null, corridor);
      return ok(corridor);
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
