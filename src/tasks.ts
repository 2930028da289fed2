// Every durable background task of the service, by graphile-worker task name, and the schedules
// that start some of them. Each area contributes from its own jobs.ts.
import type { CronItem } from 'graphile-worker';
import { UNLOCK_TASK, unlockCron, unlockDeadWorkersTask, type TaskList } from './platform/jobs.ts';
import { payoutCron, payoutTasks, type PayoutJobDeps } from './payouts/jobs.ts';
import type { Pipeline } from './settlements/pipeline.ts';
import { PURGE_CRON, PURGE_TASK, purgeExpiredKeysTask } from './platform/idempotency.ts';
import { PURGE_EVENTS_CRON, PURGE_EVENTS_TASK, purgeEventsTask } from './events/service.ts';

export function buildTaskList(deps: PayoutJobDeps & { settlementPipeline: Pipeline }): TaskList {
  return {
    ...payoutTasks(deps),
    ...deps.settlementPipeline.tasks,
    [PURGE_TASK]: purgeExpiredKeysTask(deps.db, () => deps.clock.now()),
    [UNLOCK_TASK]: unlockDeadWorkersTask(deps.db),
    [PURGE_EVENTS_TASK]: purgeEventsTask(deps.db, deps.clock),
  };
}

export const cronItems: CronItem[] = [
  ...payoutCron,
  { task: PURGE_TASK, match: PURGE_CRON, options: { backfillPeriod: 0, jobKey: PURGE_TASK } },
  unlockCron,
  { task: PURGE_EVENTS_TASK, match: PURGE_EVENTS_CRON, options: { backfillPeriod: 0, jobKey: PURGE_EVENTS_TASK } },
];
