// What the pipeline's steps, its doubt job and its last-attempt guard share: the settlement row
// locked in a transaction (never while a venue is called), intents recorded before calls, a
// failure that returns the funds only when nothing moved, and parking for an operator.
import type { Clock } from '../platform/clock.ts';
import type { Db, Queryable } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { failLocked, recordStep, type Locked } from './apply.ts';
import { UNFINISHED, type SettlementStatus } from './lifecycle.ts';
import * as repo from './repo.ts';
import { openReviewOf, type ReviewReason } from './review-repo.ts';
import { parkLocked, type Alarm } from './review.ts';
import type { Venues } from './venues.ts';

export interface PipelineDeps {
  db: Db;
  venues: Venues;
  clock: Clock;
  /** Parked settlements are raised here (error level, with an `alarm` field). */
  alarm?: Alarm;
}

/** The steps whose recorded intent means money may have left (or left already). */
const MONEY_MAY_HAVE_LEFT: readonly repo.Step[] = ['BUY_REQUESTED', 'BUY'];

export function createContext(deps: PipelineDeps) {
  const { db, clock } = deps;

  /** In a transaction, with the row locked: runs `then` only if the settlement is in one of the statuses and not parked. */
  async function whileIn(settlementId: string, statuses: readonly SettlementStatus[], then: (client: Queryable, row: Locked, steps: repo.Steps) => Promise<void>) {
    await withTransaction(db, async (client) => {
      const row = await repo.lockSettlement(client, settlementId);
      if (!row || !statuses.includes(row.settlementStatus as SettlementStatus)) return;
      if (await openReviewOf(client, settlementId)) return;
      await then(client, row, await repo.readSteps(client, settlementId));
    });
  }

  const context = {
    deps,
    whileIn,
    isParked: async (settlementId: string) => (await openReviewOf(db, settlementId)) !== undefined,

    /** Records a venue call's intent before the call; false when the settlement is no longer where the step expects it. */
    async requestIntent(settlementId: string, status: SettlementStatus, step: repo.Step, intent: object): Promise<boolean> {
      let ready = false;
      await whileIn(settlementId, [status], async (client, row) => {
        await recordStep(client, row, step, intent, clock.now());
        ready = true;
      });
      return ready;
    },

    /** Fails an unfinished settlement whose money is proven not to have left the service; what was taken in goes back. */
    async failNothingMoved(settlementId: string, reason: string): Promise<void> {
      await whileIn(settlementId, UNFINISHED, async (client, row, steps) => {
        await failLocked(client, row, reason, steps);
      });
    },

    async park(settlementId: string, reason: ReviewReason, detail: string, evidence: object): Promise<void> {
      await whileIn(settlementId, UNFINISHED, async (client, row, steps) => {
        await parkLocked(client, row, steps, { reason, detail, evidence: { ...evidence, at: clock.now() } }, clock.now(), deps.alarm);
      });
    },

    /** A job used its attempts: nothing requested yet, it fails (nothing moved); otherwise it parks. */
    async lastAttemptFailed(settlementId: string, reason: string): Promise<void> {
      await whileIn(settlementId, UNFINISHED, async (client, row, steps) => {
        if (!MONEY_MAY_HAVE_LEFT.some((s) => steps.has(s))) {
          await failLocked(client, row, reason, steps);
          return;
        }
        await parkLocked(client, row, steps, { reason: 'ATTEMPTS_EXHAUSTED', detail: reason, evidence: { at: clock.now() } }, clock.now(), deps.alarm);
      });
    },
  };
  return context;
}

export type PipelineContext = ReturnType<typeof createContext>;
