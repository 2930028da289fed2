// The settlement area's use cases, wired to their dependencies.
import { instantOf, type Clock } from '../platform/clock.ts';
import type { Db } from '../platform/database/pool.ts';
import { createSettlementCreator } from './create-settlement.ts';
import * as repo from './repo.ts';
import { settlementRecord, type SettlementRecord } from './views.ts';
import { ok, refuse, type Result } from '../platform/result.ts';
import type { Pipeline } from './pipeline.ts';
import { createDirectory, type Directory } from '../members/directory.ts';
import type { SettlementListQuery } from './schemas.ts';
import { decimalToJsonNumber } from '../platform/money.ts';

export interface SettlementsDeps {
  db: Db;
  clock: Clock;
  pipeline: Pipeline;
  directory?: Directory;
}

export type AdvanceResult = Result<SettlementRecord, 'UNKNOWN_SETTLEMENT' | 'NOT_CANCELLABLE' | 'SETTLEMENT_FINISHED'>;

export function createSettlementsService(deps: SettlementsDeps) {
  const directory = deps.directory ?? createDirectory(deps.db, deps.clock);
  const creator = createSettlementCreator({ ...deps, directory });
  return {
    create: creator.create,

    /** Sandbox: runs the settlement's next step now (a scheduled one starts); `fail` makes that step fail for good. */
    async advance(memberId: string, settlementId: string, options: { fail?: boolean }): Promise<AdvanceResult> {
      const row = await repo.findSettlement(deps.db, memberId, settlementId);
      if (!row) return refuse('UNKNOWN_SETTLEMENT', `settlementId: ${settlementId}`);
      const step = await deps.pipeline.nextStep(row);
      if (!step) return refuse('SETTLEMENT_FINISHED', `settlementStatus: ${row.settlementStatus}`);
      if (options.fail) await repo.setFailNextStep(deps.db, settlementId);
      await deps.pipeline.steps[step](settlementId, true);
      return ok(settlementRecord((await repo.findSettlement(deps.db, memberId, settlementId))!));
    },

    async cancel(memberId: string, settlementId: string): Promise<AdvanceResult> {
      const result = await deps.pipeline.cancel(memberId, settlementId);
      if (result.ok) return ok(settlementRecord(result.row));
      return refuse(result.code === 'NOT_FOUND' ? 'UNKNOWN_SETTLEMENT' : 'NOT_CANCELLABLE', result.detail);
    },

    /** One page of the caller's settlements (the query already checked by the route schema). */
    async list(memberId: string, query: SettlementListQuery) {
      const { rows, totalRecords } = await repo.listSettlementRows(deps.db, {
        sourceMemberId: memberId,
        destinationMemberId: query.destinationMemberId,
        settlementStatus: query.settlementStatus,
        createdAfter: query.createdAfter === undefined ? undefined : instantOf(query.createdAfter),
        sortField: query.sortField,
        sortDirection: query.sortDirection.toLowerCase() === 'asc' ? 'asc' : 'desc',
        limit: query.size,
        offset: query.page * query.size,
      });
      return { settlements: rows.map(settlementRecord), page: query.page, size: query.size, totalPages: Math.ceil(totalRecords / query.size), totalRecords };
    },

    /** GET /v2/settlement-context: the caller's corridors with their maximum and what is in flight. */
    async context(memberId: string) {
      const corridors = await repo.corridorFigures(deps.db, memberId);
      const member = await directory.member(memberId);
      return {
        sourceMemberId: memberId,
        sourceCcy: member?.currencies[0] ?? '',
        corridors: corridors.map((c) => ({
          destinationMemberId: c.destinationMemberId,
          destinationCcy: c.destinationCcy,
          active: c.active,
          maxSettlementAmt: decimalToJsonNumber(c.maxSettlementAmt),
          inFlightAmt: decimalToJsonNumber(c.inFlightAmt),
        })),
      };
    },

    async get(memberId: string, settlementId: string) {
      const row = await repo.findSettlement(deps.db, memberId, settlementId);
      return row && settlementRecord(row);
    },
  };
}

export type SettlementsService = ReturnType<typeof createSettlementsService>;
