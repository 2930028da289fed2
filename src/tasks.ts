// Every durable background task of the service, by graphile-worker task name. Each area adds its
// jobs here from its own jobs.ts.
import type { TaskList } from './platform/jobs.ts';

export const taskList: TaskList = {};
