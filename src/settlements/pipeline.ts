// The settlement pipeline, assembled: its steps (steps.ts), the doubt job (doubt.ts), its jobs
// (jobs.ts) and cancellation (cancel.ts), over one set of venues. Every change of a settlement
// goes through apply.ts.
import { createContext, type PipelineDeps } from './context.ts';
import { createDoubt } from './doubt.ts';
import { settlementTasks, type StepName } from './jobs.ts';
import { UNFINISHED, type SettlementStatus } from './lifecycle.ts';
import { cancelSettlement } from './cancel.ts';
import * as repo from './repo.ts';
import { createSteps } from './steps.ts';

export { SETTLEMENT_TASKS, stepJob, enqueueStep, type StepName } from './jobs.ts';
export type { PipelineDeps } from './context.ts';

const isFinished = (status: string) => !UNFINISHED.includes(status as SettlementStatus);

export function createPipeline(deps: PipelineDeps) {
  const ctx = createContext(deps);
  const { steps, recorded } = createSteps(ctx);
  const resolveDoubt = createDoubt(ctx, recorded);

  /** The step a settlement waits for, by its status and what is recorded. */
  async function nextStep(row: repo.SettlementRow): Promise<StepName | undefined> {
    switch (row.settlementStatus) {
      case 'S100_SCHEDULED': return 'start';
      case 'S200_RECEIVED': return 'buy';
      case 'S300_IN_PROGRESS': return (await repo.readSteps(deps.db, row.settlementId)).has('TRANSFER_CONFIRMED') ? 'swap' : 'transfer';
      case 'S400_FIAT_WITHDRAWAL_IN_PROGRESS': return 'withdraw';
      default: return undefined;
    }
  }

  return {
    steps,
    nextStep,
    resolveDoubt,
    cancel: (memberId: string, settlementId: string) => cancelSettlement(deps.db, memberId, settlementId),
    tasks: settlementTasks({ steps, resolveDoubt, lastAttemptFailed: ctx.lastAttemptFailed }),
    isFinished,
  };
}

export type Pipeline = ReturnType<typeof createPipeline>;
