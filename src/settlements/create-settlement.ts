// POST /v2/settlements: the checks of CONTRACT section 5 in their order, then the settlement with
// the rate of its execution interval, the rate marked used, and its first event, in one
// transaction under a lock on the rate (so a rate serves one settlement, however many ask).
// Optional Idempotency-Key: the answer (a refusal too) is stored with the work and replayed.
// Creations are group-committed (platform/batcher.ts): many share one transaction, one commit and
// one insert of their pipeline jobs; each still takes its own rate's lock.
import type { Clock } from '../platform/clock.ts';
import { type Db, type Queryable } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { claimKey, completeKey, releaseKey, requestFingerprint, type KeyRef } from '../platform/idempotency.ts';
import { createDirectory, type Directory } from '../members/directory.ts';
import { createBatcher } from '../platform/batcher.ts';
import { enqueueJobs, type JobSpec } from '../platform/jobs.ts';
import * as repo from './repo.ts';
import { settlementRecord, statusEventData, type SettlementRecord } from './views.ts';
import { refusalAnswer, settlementTerms, type Checked, type CreateAnswer, type CreateSettlementInput, type ErrorAnswer } from './settlement-terms.ts';
import { stepJob } from './pipeline.ts';

export const CREATE_OPERATION = 'POST /v2/settlements';

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
    const findRate = (rateId: string) => repo.findRate(client, memberId, rateId, true);
    const checked = await settlementTerms({ directory, findRate, clock: deps.clock }, memberId, input);
    if (!checked.ok) return checked;
    const row = checked.value;
    await repo.insertSettlement(client, row, {
      memberId, type: 'settlement.status_changed', resourceId: row.settlementId, sequence: 1, data: statusEventData(row, null),
    });
    jobs.push(row.settlementStatus === 'S200_RECEIVED' ? stepJob('buy', row.settlementId) : stepJob('start', row.settlementId, row.dueDate));
    return checked;
  }

  /** One transaction for many creations: each checked and written in turn, the answers of their keys stored, their jobs added at once. */
  async function runBatch(items: Item[]): Promise<CreateAnswer[]> {
    return withTransaction(deps.db, async (client) => {
      const jobs: JobSpec[] = [];
      const answers: CreateAnswer[] = [];
      for (const item of items) {
        const result = await createIn(client, item.memberId, item.input, jobs);
        const answer: CreateAnswer = result.ok ? { ok: true, record: settlementRecord(result.value), replayed: false } : refusalAnswer(result.error, result.detail);
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
        return refusalAnswer('IDEMPOTENCY_KEY_REUSED');
      }
      if (claim.kind === 'IN_PROGRESS') {
        return refusalAnswer('REQUEST_IN_PROGRESS');
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
