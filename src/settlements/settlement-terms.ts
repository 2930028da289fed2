// The checks of a settlement creation (CONTRACT section 5, in their order) and the settlement they
// give. The rate comes through `findRate`: the stored lock, under its row lock, for the service; in
// mock mode, which stores nothing, a rate locked now for the request's destination member.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import { ERROR_STATUS, type ErrorCode } from '../platform/http/errors.ts';
import { formatMinor, parseAmount } from '../platform/money.ts';
import type { Directory } from '../members/directory.ts';
import { hoursOf, type ExecutionInterval } from './intervals.ts';
import type { RateRow, SettlementRow } from './repo.ts';
import type { SettlementRecord } from './views.ts';
import { ok, refuse, type Result } from '../platform/result.ts';
import { SETTLEMENT_REFUSALS, type CreateRefusal, type KeyRefusal } from './errors.ts';

export interface CreateSettlementInput {
  destinationMemberId: string;
  settlementAmt: number;
  rateId: string;
  executionInterval: ExecutionInterval;
  notes?: string;
}

export interface ErrorAnswer {
  code: ErrorCode;
  message: string;
  detail: string;
}

export type CreateAnswer =
  | { ok: true; record: SettlementRecord; replayed: boolean }
  | { ok: false; status: number; error: ErrorAnswer; replayed: boolean };

/** A refusal as the route answers it (and an Idempotency-Key stores it), from the refusal table. */
export function refusalAnswer(refusal: CreateRefusal | KeyRefusal, detail?: string): CreateAnswer {
  const { code, message, ...fixed } = SETTLEMENT_REFUSALS[refusal];
  return { ok: false, status: ERROR_STATUS[code], error: { code, message, detail: detail ?? ('detail' in fixed ? fixed.detail : '') }, replayed: false };
}

export type Checked = Result<SettlementRow, CreateRefusal>;

export interface SettlementRuleSources {
  directory: Pick<Directory, 'member' | 'corridors'>;
  /** The caller's rate lock of that id (the service locks its row). */
  findRate(rateId: string): Promise<RateRow | undefined>;
  /** Read once the rate is in hand (the service may have waited for its lock). */
  clock: Clock;
}


/** Every check, then the new settlement's row (not yet written). */
export async function settlementTerms(sources: SettlementRuleSources, memberId: string, input: CreateSettlementInput): Promise<Checked> {
  const { directory } = sources;
  const caller = await directory.member(memberId);
  const sourceCcy = caller?.currencies[0];
  if (!sourceCcy) throw new Error(`source member ${memberId} has no currency`);
  const amount = parseAmount(input.settlementAmt, sourceCcy);
  if (!amount.ok) return refuse('VALIDATION_ERROR', `settlementAmt: more decimals than ${sourceCcy} has`);
  const destination = await directory.member(input.destinationMemberId);
  if (destination?.kind !== 'DESTINATION') {
    return refuse('UNKNOWN_DESTINATION_MEMBER', `destinationMemberId: ${input.destinationMemberId} is not a destination member`);
  }
  const corridors = await directory.corridors(memberId, destination.memberId);
  if (!corridors.some((c) => c.active)) return refuse('CORRIDOR_INACTIVE', `destinationMemberId: no active corridor to ${destination.memberId}`);
  const rate = await sources.findRate(input.rateId);
  if (!rate) return refuse('RATE_NOT_FOUND', `rateId: ${input.rateId}`);
  if (rate.usedBy !== null) return refuse('RATE_ALREADY_USED', `rateId: ${input.rateId} was used by settlement ${rate.usedBy}`);
  const now = sources.clock.now();
  if (rate.expiryTime <= now) return refuse('RATE_EXPIRED', `rateId: expired at ${rate.expiryTime.toISOString()}`);
  if (rate.destinationMemberId !== destination.memberId) {
    return refuse('RATE_MISMATCH', `rateId: locked for ${rate.destinationMemberId}, not ${destination.memberId}`);
  }
  const corridor = corridors.find((c) => c.destinationCcy === rate.destinationCcy);
  if (!corridor?.active) return refuse('CORRIDOR_INACTIVE', `destinationMemberId: no active corridor to ${destination.memberId} in ${rate.destinationCcy}`);
  const max = parseAmount(corridor.maxSettlementAmt, sourceCcy);
  if (!max.ok || amount.minor > max.minor) {
    return refuse('AMOUNT_ABOVE_CORRIDOR_MAX', `settlementAmt: at most ${corridor.maxSettlementAmt} ${sourceCcy} to ${destination.memberId}`);
  }
  const hours = hoursOf(input.executionInterval);
  return ok({
    settlementId: randomUUID(),
    sourceMemberId: memberId,
    destinationMemberId: destination.memberId,
    sourceCcy,
    destinationCcy: rate.destinationCcy,
    settlementAmt: formatMinor(amount.minor, sourceCcy),
    pendingAmt: formatMinor(amount.minor, sourceCcy),
    rate: rate.forecastRates[hours]!,
    rateId: rate.rateId,
    executionInterval: input.executionInterval,
    settlementStatus: hours === 0 ? 'S200_RECEIVED' : 'S100_SCHEDULED',
    settlementAmtReceived: null,
    notes: input.notes ?? null,
    failureReason: null,
    creationTime: now,
    dueDate: new Date(now.getTime() + hours * 3_600_000),
    completionTime: null,
    eventSequence: 1,
  });
}
