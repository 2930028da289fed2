// Every durable background task of the service, by graphile-worker task name, and the schedules
// that start some of them. Each area contributes from its own jobs.ts.
import type { CronItem } from 'graphile-worker';
import type { TaskList } from './platform/jobs.ts';
import { payoutCron, payoutTasks, type PayoutJobDeps } from './payouts/jobs.ts';
import type { Pipeline } from './settlements/pipeline.ts';

export function buildTaskList(deps: PayoutJobDeps & { settlementPipeline: Pipeline }): TaskList {
  return { ...payoutTasks(deps), ...deps.settlementPipeline.tasks };
}

export const cronItems: CronItem[] = [...payoutCron];
