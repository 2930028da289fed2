// The expiry sweep with real workers: scheduled from boot, kept alive by a cron line, and run by
// the service's own graphile-worker runner (the lifecycle tests run it by hand with a chosen clock).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { enqueueJob } from '../../src/platform/jobs.ts';
import { payoutCron } from '../../src/payouts/jobs.ts';

let service: TestService;
let api: ReturnType<typeof payoutApi>;
before(async () => {
  service = await startTestService({ WORKERS: '1' });
  api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
});
after(async () => {
  await service.stop();
});

const sweepJobs = async () =>
  (await service.db.query(`SELECT task_identifier AS task, run_at AS "runAt" FROM graphile_worker.jobs WHERE key = 'payout-expiry-sweep'`)).rows;

test('the sweep is scheduled from boot, and a cron line runs it every minute whatever happens to that', async () => {
  const deadline = Date.now() + 10_000;
  let jobs = await sweepJobs();
  while (jobs.length === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    jobs = await sweepJobs();
  }
  assert.equal(jobs.length, 1, 'one sweep job, by its key');
  assert.equal(jobs[0].task, 'payout.expire_due');
  assert.ok(jobs[0].runAt.getTime() <= Date.now() + 61_000, 'due within a minute');
  assert.deepEqual(
    payoutCron.filter((c) => c.task === 'payout.expire_due').map((c) => [c.match, c.options?.jobKey]),
    [['* * * * *', 'payout-expiry-sweep']],
  );
});

test("the service's workers expire a payout whose time has come, and void its reservation", async () => {
  const id = String((await api.created(payoutBody()))['payoutId']);
  await service.db.query(`UPDATE payouts SET expiry_time = now() - interval '1 second' WHERE payout_id = $1`, [id]);
  await service.db.query(`UPDATE payout_expiry_queue SET expiry_time = now() - interval '1 second' WHERE payout_id = $1`, [id]);
  await enqueueJob(service.db, 'payout.expire_due', {}, { jobKey: 'payout-expiry-sweep' });
  const deadline = Date.now() + 15_000;
  while ((await api.record(id))['payoutStatus'] === 'ACCP' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal((await api.record(id))['payoutStatus'], 'EXPD');
  const { rows } = await service.db.query(`SELECT state FROM ledger_transfers WHERE reference = $1`, [id]);
  assert.deepEqual(rows.map((r) => r.state), ['VOIDED', 'VOIDED']);
  const next = await sweepJobs();
  assert.equal(next.length, 1, 'the sweep scheduled its next run');
});
