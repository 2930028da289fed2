// The operator CLI, run as operators run it, against a running service and against a stopped one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, startTestService, tempDataDir, type TestService } from '../support/service.ts';
import { bearer, json, requestToken } from '../support/http.ts';

const run = promisify(execFile);
const NODE = path.join(ROOT, 'node_modules/.bin/node');

let dataDir: string;
let service: TestService | undefined;

async function admin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(NODE, ['src/admin/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function adminJson<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const result = await admin([...args, '--json']);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
}

before(async () => {
  dataDir = await tempDataDir();
  service = await startTestService({ DATA_DIR: dataDir });
});
after(async () => {
  await service?.stop();
});

describe('while the service runs', () => {
  test('the runtime file that points the CLI at the database is readable by its owner only', async () => {
    const stat = await fs.stat(path.join(dataDir, 'runtime.json'));
    assert.equal(stat.mode & 0o777, 0o600);
  });

  test('members list shows the sandbox world', async () => {
    const members = await adminJson<Array<{ memberId: string; kind: string }>>(['members', 'list']);
    assert.ok(members.some((m) => m.memberId === 'DEMO_SOURCE_1' && m.kind === 'SOURCE'));
    assert.ok(members.some((m) => m.memberId === 'PARTNER_MX' && m.kind === 'DESTINATION'));
    const text = await admin(['members', 'list', '--kind', 'destination']);
    assert.match(text.stdout, /^memberId\s+name\s+kind/);
    assert.doesNotMatch(text.stdout, /DEMO_SOURCE_1/);
  });

  test('members create, corridors set and list', async () => {
    const member = await adminJson(['members', 'create', '--id', 'CLI_SOURCE', '--name', 'CLI Source', '--kind', 'source', '--country', 'GB', '--currencies', 'GBP']);
    assert.equal(member['memberId'], 'CLI_SOURCE');
    const corridor = await adminJson(['corridors', 'set', '--source', 'CLI_SOURCE', '--destination', 'PARTNER_MX', '--max-settlement-amt', '25000.50']);
    assert.deepEqual(corridor, { sourceMemberId: 'CLI_SOURCE', destinationMemberId: 'PARTNER_MX', destinationCcy: 'MXN', active: true, maxSettlementAmt: '25000.50' });
    const suspended = await adminJson(['corridors', 'set', '--source', 'CLI_SOURCE', '--destination', 'PARTNER_MX', '--active', 'false']);
    assert.equal(suspended['active'], false);
    assert.equal(suspended['maxSettlementAmt'], '25000.50');
    const list = await adminJson<unknown[]>(['corridors', 'list', '--source', 'CLI_SOURCE']);
    assert.equal(list.length, 1);
  });

  test('refusals exit 1 with the reason and change nothing', async () => {
    const duplicate = await admin(['members', 'create', '--id', 'DEMO_SOURCE_1', '--name', 'x', '--kind', 'source', '--country', 'US', '--currencies', 'USD']);
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /MEMBER_EXISTS/);
    const badCurrency = await admin(['corridors', 'set', '--source', 'DEMO_SOURCE_1', '--destination', 'PARTNER_MX', '--currency', 'USD']);
    assert.equal(badCurrency.code, 1);
    assert.match(badCurrency.stderr, /UNSUPPORTED_CURRENCY/);
    const badCountry = await admin(['members', 'create', '--id', 'X1', '--name', 'x', '--kind', 'source', '--country', 'usa', '--currencies', 'USD']);
    assert.equal(badCountry.code, 1);
    assert.match(badCountry.stderr, /countryCode/);
    const unknown = await admin(['members', 'explode']);
    assert.equal(unknown.code, 2);
  });

  test('clients create prints the secret once; it gets a token from the running service; rotate and revoke work', async () => {
    const created = await adminJson(['clients', 'create', '--member', 'DEMO_SOURCE_2', '--scopes', 'payouts', '--name', 'ops']);
    const clientId = String(created['clientId']);
    const secret = String(created['clientSecret']);
    assert.ok(service);
    const first = await requestToken(service.url, { clientId, secret, scope: 'payouts' });
    assert.equal(first.status, 200);
    const listed = await adminJson<Array<Record<string, unknown>>>(['clients', 'list', '--member', 'DEMO_SOURCE_2']);
    const row = listed.find((c) => c['clientId'] === clientId);
    assert.ok(row);
    assert.equal(row['clientSecret'], undefined);

    const rotated = await adminJson(['clients', 'rotate', clientId]);
    assert.notEqual(rotated['clientSecret'], secret);
    assert.equal((await requestToken(service.url, { clientId, secret, scope: 'payouts' })).status, 401);
    const fresh = await requestToken(service.url, { clientId, secret: String(rotated['clientSecret']), scope: 'payouts' });
    assert.equal(fresh.status, 200);
    const liveToken = String((await json(fresh))['access_token']);

    const revoked = await adminJson(['clients', 'revoke', clientId]);
    assert.equal(typeof revoked['revokedAt'], 'string');
    assert.equal((await requestToken(service.url, { clientId, secret: String(rotated['clientSecret']), scope: 'payouts' })).status, 401);
    // the live token dies within the client-status cache lifetime (2 s)
    const deadline = Date.now() + 5000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await fetch(`${service.url}/v2/purpose-codes`, { headers: bearer(liveToken) })).status;
    }
    assert.equal(status, 401);
  });
});

describe('while the service is stopped', () => {
  test('the CLI starts the embedded database itself, and its changes are there when the service returns', async () => {
    await service?.stop();
    service = undefined;
    const created = await adminJson(['clients', 'create', '--member', 'DEMO_SOURCE_1', '--scopes', 'member']);
    await assert.rejects(fs.stat(path.join(dataDir, 'runtime.json'))); // it cleaned up after itself
    service = await startTestService({ DATA_DIR: dataDir });
    const response = await requestToken(service.url, { clientId: String(created['clientId']), secret: String(created['clientSecret']), scope: 'member' });
    assert.equal(response.status, 200);
  });
});
