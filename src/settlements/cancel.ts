// POST /v2/settlements/{id}/cancel: a scheduled settlement ends (S500_TERMINATED) and its start job goes.
import type { Db } from '../platform/database/pool.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { formatMinor } from '../platform/money.ts';
import { removeJob } from '../platform/jobs.ts';
import { applyEvent } from './apply.ts';
import { jobKey } from './jobs.ts';
import * as repo from './repo.ts';

export type CancelResult = { ok: true; row: repo.SettlementRow } | { ok: false; code: 'NOT_FOUND' | 'INVALID_STATE'; detail: string };

export async function cancelSettlement(db: Db, memberId: string, settlementId: string): Promise<CancelResult> {
  if (!(await repo.findSettlement(db, memberId, settlementId))) return { ok: false, code: 'NOT_FOUND', detail: `settlementId: ${settlementId}` };
  return withTransaction(db, async (client): Promise<CancelResult> => {
    const row = (await repo.lockSettlement(client, settlementId))!;
    if (row.settlementStatus !== 'S100_SCHEDULED') return { ok: false, code: 'INVALID_STATE', detail: `settlementStatus: ${row.settlementStatus}` };
    const next = await applyEvent(client, row, 'CANCELLED', { pendingAmt: formatMinor(0n, row.sourceCcy) });
    await removeJob(client, jobKey(settlementId));
    return { ok: true, row: next };
  });
}
