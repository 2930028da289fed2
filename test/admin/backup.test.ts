// Backups of the embedded database: `backup create` copies a stopped DATA_DIR into one file,
// `backup restore` unpacks it into an empty DATA_DIR; the service started there has the payouts
// and a ledger that checks. Both refuse while the database runs, and restore never overwrites.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { adminCli } from '../support/admin.ts';
import { startTestService, tempDataDir } from '../support/service.ts';
import { token } from '../support/http.ts';
import { eventually, payoutApi, payoutBody } from '../support/payouts.ts';
import { checkLedger } from '../../src/ledger/service.ts';

test('a backup taken from a stopped service restores into a fresh DATA_DIR with its payouts and a ledger that checks', async () => {
  let dataDir = '';
  const { admin, refused } = adminCli(() => dataDir);
  const original = await startTestService({ WORKERS: '1', WEBHOOK_WORKERS: '0' });
  dataDir = original.dataDir;
  const file = path.join(await tempDataDir(), 'service.tar.gz');
  const ids: string[] = [];
  try {
    const api = payoutApi(original.url, await token(original.url, { scope: 'payouts' }));
    for (let i = 0; i < 3; i++) ids.push(String((await api.created(payoutBody('MX_SPEI', { payoutAmt: 100 + i })))['payoutId']));
    assert.equal((await api.process(ids[0]!)).status, 200);
    await eventually(() => api.record(ids[0]!), (r) => r['payoutStatus'] === 'PRCD');
    await refused(['backup', 'create', '--file', file], 1, /is running: stop the service first/);
  } finally {
    await original.stop();
  }

  const created = await admin(['backup', 'create', '--file', file, '--json']);
  assert.equal(created.code, 0, created.stderr);
  assert.equal(JSON.parse(created.stdout)['file'], file);
  assert.ok((await fs.stat(file)).size > 0);

  await refused(['backup', 'restore', '--file', file], 1, /is not empty: restore into a new DATA_DIR/);
  dataDir = await tempDataDir();
  const restored = await admin(['backup', 'restore', '--file', file]);
  assert.equal(restored.code, 0, restored.stderr);

  const service = await startTestService({ DATA_DIR: dataDir, WORKERS: '0', WEBHOOK_WORKERS: '0' });
  try {
    const api = payoutApi(service.url, await token(service.url, { scope: 'payouts' }));
    const statuses = await Promise.all(ids.map(async (id) => (await api.record(id))['payoutStatus']));
    assert.deepEqual(statuses, ['PRCD', 'ACCP', 'ACCP']);
    assert.deepEqual(await checkLedger(service.db), { totalsMismatches: [], unbalancedCurrencies: [], crossCurrencyTransfers: [], danglingTransfers: [] });
  } finally {
    await service.stop();
  }
});

test('restore refuses a file that is not a backup', async () => {
  const dataDir = await tempDataDir();
  const { refused } = adminCli(() => dataDir);
  const junk = path.join(await tempDataDir(), 'junk.tar.gz');
  await fs.writeFile(junk, 'not a backup');
  await refused(['backup', 'restore', '--file', junk], 1, /is not a readable backup/);
  await refused(['backup', 'restore'], 2, /--file is required/);
});
