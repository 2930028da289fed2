// POST /v2/settlements: the checks of CONTRACT section 5 in their order, then the settlement with
// the rate of its execution interval, the rate marked used, and its first event, in one
// transaction under a lock on the rate (so a rate serves one settlement, however many ask).
// Optional Idempotency-Key: the answer (a refusal too) is stored with the work and replayed.
// Creations are group-committed (platform/batcher.ts): many share one transaction, one commit and
// one insert of their pipeline jobs; each still takes its own rate's lock.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import { type Db, type Queryable } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { claimKey, completeKey, releaseKey, requestFingerprint, type KeyRef } from '../platform/idempotency.ts';
import { ERROR_STATUS, type ErrorCode } from '../platform/http/errors.ts';
import { formatMinor, parseAmount } from '../platform/money.ts';
import { createDirectory, type Directory } from '../members/directory.ts';
import { createBatcher } from '../platform/batcher.ts';
import { enqueueJobs, type JobSpec } from '../platform/jobs.ts';
import { hoursOf, type ExecutionInterval } from './intervals.ts';
import * as repo from './repo.ts';
import { settlementRecord, statusEventData, type SettlementRecord } from './views.ts';
import { stepJob } from './pipeline.ts';

export interface CreateSettlementInput {
  destinationMemberId: string;
  settlementAmt: number;
  rateId: string;
  executionInterval: ExecutionInterval;
  notes?: string;
}

export type CreateRefusal =
  | 'VALIDATION_ERROR' | 'UNKNOWN_DESTINATION_MEMBER' | 'CORRIDOR_INACTIVE' | 'RATE_NOT_FOUND' | 'RATE_ALREADY_USED'
  | 'RATE_EXPIRED' | 'RATE_MISMATCH' | 'AMOUNT_ABOVE_CORRIDOR_MAX';

export const CREATE_REFUSAL_MESSAGES: Record<CreateRefusal, string> = {
  VALIDATION_ERROR: 'The request is not valid.',
  UNKNOWN_DESTINATION_MEMBER: 'No such destination member.',
  CORRIDOR_INACTIVE: 'You have no active corridor to this destination member.',
  RATE_NOT_FOUND: 'No such rate: get one from GET /v2/settlement-rates.',
  RATE_ALREADY_USED: 'This rate was already used by another settlement.',
  RATE_EXPIRED: 'This rate lock has expired: get a new one.',
  RATE_MISMATCH: 'This rate was locked for another destination member.',
  AMOUNT_ABOVE_CORRIDOR_MAX: 'The amount is above the corridor maximum.',
};

export interface ErrorAnswer {
  code: ErrorCode;
  message: string;
  detail: string;
}

export type CreateAnswer =
  | { ok: true; record: SettlementRecord; replayed: boolean }
  | { ok: false; status: number; error: ErrorAnswer; replayed: boolean };

export const CREATE_OPERATION = 'POST /v2/settlements';

const errorAnswer = (code: CreateRefusal, detail: string): ErrorAnswer => ({ code, message: CREATE_REFUSAL_MESSAGES[code], detail });
const statusOf = (code: ErrorCode): number => ERROR_STATUS[code];

const refuse = (code: CreateRefusal, detail: string) => ({ ok: false as const, code, detail });
type Checked = { ok: true; record: SettlementRecord } | ReturnType<typeof refuse>;

export interface CreateSettlementDeps {
  db: Db;
  clock: Clock;
  directory?: Directory;
}

interface Item {
  memberId: string;
  input: CreateSettlementInput;
  key?: KeyRef;
}

const BATCH_SIZE_MAX = 100;
/** Creations of different rates share no lock: a few batches may commit side by side. */
const BATCH_CONCURRENCY_MAX = 2;

export function createSettlementCreator(deps: CreateSettlementDeps) {
  const directory = deps.directory ?? createDirectory(deps.db, deps.clock);

  /** The checks and the writes, in the caller's transaction; the pipeline's first job is left to the caller. */
  async function createIn(client: Queryable, memberId: string, input: CreateSettlementInput, jobs: JobSpec[]): Promise<Checked> {
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
    const rate = await repo.findRate(client, memberId, input.rateId, true);
    if (!rate) return refuse('RATE_NOT_FOUND', `rateId: ${input.rateId}`);
    if (rate.usedBy !== null) return refuse('RATE_ALREADY_USED', `rateId: ${input.rateId} was used by settlement ${rate.usedBy}`);
    const now = deps.clock.now();
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
    const row: repo.SettlementRow = {
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
    };
    await repo.insertSettlement(client, row, {
      memberId, type: 'settlement.status_changed', resourceId: row.settlementId, sequence: 1, data: statusEventData(row, null),
    });
    jobs.push(hours === 0 ? stepJob('buy', row.settlementId) : stepJob('start', row.settlementId, row.dueDate));
    return { ok: true, record: settlementRecord(row) };
  }


  /** One transaction for many creations: each checked and written in turn, the answers of their keys stored, their jobs added at once. */
  async function runBatch(items: Item[]): Promise<CreateAnswer[]> {
    return withTransaction(deps.db, async (client) => {
      const jobs: JobSpec[] = [];
      const answers: CreateAnswer[] = [];
      for (const item of items) {
        const result = await createIn(client, item.memberId, item.input, jobs);
        const answer: CreateAnswer = result.ok
          ? { ok: true, record: result.record, replayed: false }
          : { ok: false, status: statusOf(result.code), error: errorAnswer(result.code, result.detail), replayed: false };
        if (item.key) await completeKey(client, item.key, answer.ok ? 201 : answer.status, answer.ok ? answer.record : answer.error);
        answers.push(answer);
      }
      await enqueueJobs(client, jobs);
      return answers;
    });
  }

  const batcher = createBatcher<Item, CreateAnswer>({ run: runBatch, batchSizeMax: BATCH_SIZE_MAX, concurrencyMax: BATCH_CONCURRENCY_MAX });

  return {
    async create(memberId: string, input: CreateSettlementInput, idempotencyKey?: string): Promise<CreateAnswer> {
      if (idempotencyKey === undefined) return batcher.submit({ memberId, input });
      const key: KeyRef = { memberId, operation: CREATE_OPERATION, key: idempotencyKey };
      const claim = await claimKey(deps.db, key, requestFingerprint(input), deps.clock.now());
      if (claim.kind === 'REPLAY') {
        return claim.status === 201
          ? { ok: true, record: claim.body as SettlementRecord, replayed: true }
          : { ok: false, status: claim.status, error: claim.body as ErrorAnswer, replayed: true };
      }
      if (claim.kind === 'REUSED') {
        return { ok: false, status: statusOf('IDEMPOTENCY_KEY_REUSED'), replayed: false, error: { code: 'IDEMPOTENCY_KEY_REUSED', message: 'This Idempotency-Key was used for a different request.', detail: 'Idempotency-Key: used with a different request body' } };
      }
      if (claim.kind === 'IN_PROGRESS') {
        return { ok: false, status: statusOf('REQUEST_IN_PROGRESS'), replayed: false, error: { code: 'REQUEST_IN_PROGRESS', message: 'The first request with this Idempotency-Key has not finished.', detail: 'Idempotency-Key: retry when it has' } };
      }
      try {
        return await batcher.submit({ memberId, input, key });
      } catch (error) {
        await releaseKey(deps.db, key).catch(() => undefined);
        throw error;
      }
    },
  };
}

export type SettlementCreator = ReturnType<typeof createSettlementCreator>;
