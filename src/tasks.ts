// Every durable background task of the service, by graphile-worker task name, and the schedules
// that start some of them. Each area contributes from its own jobs.ts.
import type { CronItem } from 'graphile-worker';
import type { TaskList } from './platform/jobs.ts';
import { payoutCron, payoutTasks, type PayoutJobDeps } from './payouts/jobs.ts';

export function buildTaskList(deps: PayoutJobDeps): TaskList {
  return { ...payoutTasks(deps) };
}

export const cronItems: CronItem[] = [...payoutCron];
