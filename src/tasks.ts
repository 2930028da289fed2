// Every durable background task of the service, by graphile-worker task name. Each area
// contributes its tasks from its own jobs.ts.
import type { TaskList } from './platform/jobs.ts';
import { payoutTasks, type PayoutJobDeps } from './payouts/jobs.ts';

export function buildTaskList(deps: PayoutJobDeps): TaskList {
  return { ...payoutTasks(deps) };
}
