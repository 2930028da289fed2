// Jobs held by a worker that died are freed within a minute, not after graphile-worker's four
// hours: live workers record heartbeats, and the sweep unlocks the jobs of silent ones.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { enqueueJob, unlockDeadWorkers } from '../../src/platform/jobs.ts';

let service: TestService;
before(async () => {
  service = await startTestService({ WORKERS: '2', WEBHOOK_WORKERS: '0' });
});
after(async () => {
  await service.stop();
});

async function lockedJob(key: string, lockedBy: string, lockedSecondsAgo: number): Promise<void> {
  await enqueueJob(service.db, 'settlement.start', { settlementId: '00000000-0000-4000-8000-000000000000' }, { jobKey: key, runAt: new Date(Date.now() + 3_600_000) });
  await service.db.query(
    `UPDATE graphile_worker._private_jobs SET locked_by = $2, locked_at = now() - make_interval(secs => $3) WHERE key = $1`,
    [key, lockedBy, lockedSecondsAgo],
  );
}
const lockOf = async (key: string) => (await service.db.query('SELECT locked_by AS "lockedBy" FROM graphile_worker.jobs WHERE key = $1', [key])).rows[0].lockedBy;

test('the live workers, and their pool (which locks the jobs of its local queue), record heartbeats', async () => {
  const { rows } = await service.db.query(`SELECT count(*)::int AS n FROM job_worker_heartbeats WHERE heartbeat_at > now() - interval '10 seconds'`);
  assert.equal(rows[0].n, 3);
});

test("a silent worker's jobs are freed; a live worker's and a fresh lock are left alone", async () => {
  await lockedJob('dead-test:silent', 'worker-silent', 40);
  await service.db.query(`INSERT INTO job_worker_heartbeats VALUES ('worker-silent', now() - interval '45 seconds')`);
  await lockedJob('dead-test:unknown', 'worker-never-heard-of', 40);
  await lockedJob('dead-test:alive', 'worker-alive', 40);
  await service.db.query(`INSERT INTO job_worker_heartbeats VALUES ('worker-alive', now())`);
  await lockedJob('dead-test:fresh', 'worker-just-started', 5);

  const freed = await unlockDeadWorkers(service.db);
  // the service's own sweep (every 15 s) may have freed some of them first
  assert.ok(freed.every((w) => ['worker-never-heard-of', 'worker-silent'].includes(w)), `freed ${freed.join(', ')}`);
  assert.equal(await lockOf('dead-test:silent'), null);
  assert.equal(await lockOf('dead-test:unknown'), null);
  assert.equal(await lockOf('dead-test:alive'), 'worker-alive');
  assert.equal(await lockOf('dead-test:fresh'), 'worker-just-started');
  await service.db.query(`SELECT graphile_worker.remove_job(k) FROM unnest(ARRAY['dead-test:silent', 'dead-test:unknown']) AS k`);
  await service.db.query(`SELECT graphile_worker.force_unlock_workers(ARRAY['worker-alive', 'worker-just-started'])`);
  await service.db.query(`SELECT graphile_worker.remove_job(k) FROM unnest(ARRAY['dead-test:alive', 'dead-test:fresh']) AS k`);
});
