// The settlement area's use cases, wired to their dependencies.
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/database/pool.ts';
import { createSettlementCreator } from './create-settlement.ts';
import * as repo from './repo.ts';
import { settlementRecord } from './views.ts';

export interface SettlementsDeps {
  db: Db;
  clock: Clock;
}

export function createSettlementsService(deps: SettlementsDeps) {
  const creator = createSettlementCreator(deps);
  return {
    create: creator.create,
    async get(memberId: string, settlementId: string) {
      const row = await repo.findSettlement(deps.db, memberId, settlementId);
      return row && settlementRecord(row);
    },
  };
}

export type SettlementsService = ReturnType<typeof createSettlementsService>;
