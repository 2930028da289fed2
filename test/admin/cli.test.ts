// The operator CLI, run as operators run it, against a running service and against a stopped one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startTestService, tempDataDir, type TestService } from '../support/service.ts';
import { adminCli } from '../support/admin.ts';
import { DEMO, bearer, json, requestToken, token } from '../support/http.ts';
import { eventually, payoutApi, payoutBody } from '../support/payouts.ts';
import { registerEndpoint, startReceiver, type Receiver } from '../support/receiver.ts';
import { GONE_REASON } from '../../src/webhooks/deliver.ts';


let dataDir: string;
let service: TestService | undefined;

const { admin, adminJson } = adminCli(() => dataDir);

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

describe('webhooks, while the service runs', () => {
  let receiver: Receiver;
  let endpoint: { webhookEndpointId: string; secret: string };
  let eventId: string;
  let deliveryId: string;

  type FailedRow = { deliveryId: string; webhookEndpointId: string; eventId: string; type: string; attempts: number; lastError: string | null; completedAt: string };

  async function deliveryStatus(id: string): Promise<string | undefined> {
    assert.ok(service);
    const { rows } = await service.db.query<{ status: string }>('SELECT status FROM webhook_deliveries WHERE delivery_id = $1', [id]);
    return rows[0]?.status;
  }

  before(async () => {
    assert.ok(service);
    receiver = await startReceiver();
    receiver.answer = () => ({ status: 410 });
    endpoint = await registerEndpoint(service.url, await token(service.url, { scope: 'member' }), receiver.url, ['payout.status_changed']);
    await payoutApi(service.url, await token(service.url, { scope: 'payouts' })).created(payoutBody('MX_SPEI'));
    const db = service.db;
    const statuses = await eventually(
      async () => (await db.query<{ status: string }>('SELECT status FROM webhook_deliveries WHERE webhook_endpoint_id = $1', [endpoint.webhookEndpointId])).rows,
      (rows) => rows.some((r) => r.status === 'FAILED'),
    );
    assert.ok(statuses.some((r) => r.status === 'FAILED'), 'the first delivery failed on the 410');
    assert.ok(receiver.received.length >= 1);
    eventId = receiver.received[0]!.headers['webhook-id']!;
  });
  after(async () => {
    await receiver?.close();
  });

  test('webhooks endpoints shows the endpoint DISABLED with its reason, and no secret anywhere', async () => {
    assert.ok(service);
    const { rows } = await service.db.query<{ sealed: string }>('SELECT secret_sealed AS sealed FROM webhook_endpoints WHERE webhook_endpoint_id = $1', [endpoint.webhookEndpointId]);
    const sealed = rows[0]!.sealed;
    const listed = await adminJson<Array<Record<string, unknown>>>(['webhooks', 'endpoints', '--member', DEMO.memberId]);
    assert.ok(Array.isArray(listed), 'a list prints an array even with one row');
    const row = listed.find((e) => e['webhookEndpointId'] === endpoint.webhookEndpointId);
    assert.ok(row);
    assert.deepEqual(Object.keys(row), [
      'webhookEndpointId', 'url', 'eventTypes', 'status', 'statusReason', 'creationTime', 'circuit', 'consecutiveFailures', 'circuitOpenUntil',
    ]);
    assert.equal(row['url'], receiver.url);
    assert.deepEqual(row['eventTypes'], ['payout.status_changed']);
    assert.equal(row['status'], 'DISABLED');
    assert.equal(row['statusReason'], GONE_REASON);
    assert.equal(typeof row['creationTime'], 'string');
    assert.equal(row['circuit'], 'CLOSED', 'one failed attempt does not open the circuit');
    assert.equal(row['consecutiveFailures'], 1);
    assert.equal(row['circuitOpenUntil'], null);

    const text = await admin(['webhooks', 'endpoints', '--member', DEMO.memberId]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^webhookEndpointId\s+url\s+eventTypes\s+status\s+statusReason\s+creationTime\s+circuit\s+consecutiveFailures\s+circuitOpenUntil\n/);
    const line = text.stdout.split('\n').find((l) => l.startsWith(endpoint.webhookEndpointId));
    assert.ok(line);
    assert.match(line, /payout\.status_changed\s+DISABLED\s+the endpoint answered 410 Gone/);
    for (const output of [text.stdout + text.stderr, JSON.stringify(listed)]) {
      assert.doesNotMatch(output, /secret/i);
      assert.doesNotMatch(output, /whsec_/);
      assert.ok(!output.includes(endpoint.secret));
      assert.ok(!output.includes(sealed));
    }
    const other = await adminJson<unknown[]>(['webhooks', 'endpoints', '--member', 'DEMO_SOURCE_2']);
    assert.deepEqual(other, []);
  });

  test('webhooks failed lists the failed delivery, and checks --limit', async () => {
    const failed = await adminJson<FailedRow[]>(['webhooks', 'failed', '--member', DEMO.memberId]);
    const row = failed.find((d) => d.eventId === eventId);
    assert.ok(row, 'the delivery the receiver refused with 410 is listed');
    assert.deepEqual(Object.keys(row), ['deliveryId', 'webhookEndpointId', 'eventId', 'type', 'attempts', 'lastError', 'completedAt']);
    assert.equal(row.webhookEndpointId, endpoint.webhookEndpointId);
    assert.equal(row.type, 'payout.status_changed');
    assert.equal(row.attempts, 1);
    assert.equal(typeof row.completedAt, 'string');
    const completed = failed.map((d) => Date.parse(d.completedAt));
    assert.deepEqual(completed, [...completed].sort((a, b) => b - a), 'newest first');
    deliveryId = row.deliveryId;

    const one = await adminJson<FailedRow[]>(['webhooks', 'failed', '--member', DEMO.memberId, '--limit', '1']);
    assert.ok(Array.isArray(one));
    assert.equal(one.length, 1);
    const text = await admin(['webhooks', 'failed', '--member', DEMO.memberId]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^deliveryId\s+webhookEndpointId\s+eventId\s+type\s+attempts\s+lastError\s+completedAt\n/);
    assert.ok(text.stdout.includes(deliveryId));
    assert.equal((await admin(['webhooks', 'failed', '--member', 'DEMO_SOURCE_2'])).stdout, '(none)\n');

    for (const bad of ['0', '501', 'ten', '1.5', '-3']) {
      const result = await admin(['webhooks', 'failed', '--member', DEMO.memberId, `--limit=${bad}`]);
      assert.equal(result.code, 2, `--limit ${bad}`);
      assert.match(result.stderr, /--limit is a whole number from 1 to 500/);
      assert.match(result.stderr, /Usage:/);
    }
  });

  test('webhooks redeliver is refused while the endpoint is disabled; after webhooks enable it resends the same webhook-id', async () => {
    assert.ok(deliveryId);
    const refused = await admin(['webhooks', 'redeliver', deliveryId]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: ENDPOINT_NOT_ENABLED: .*webhooks enable/);
    assert.equal(await deliveryStatus(deliveryId), 'FAILED', 'a refusal changes nothing');

    receiver.answer = () => ({ status: 200 });
    const enabled = await adminJson(['webhooks', 'enable', endpoint.webhookEndpointId]);
    assert.equal(enabled['webhookEndpointId'], endpoint.webhookEndpointId);
    assert.equal(enabled['status'], 'ENABLED');
    assert.equal(enabled['statusReason'], null);
    assert.equal(enabled['secretSealed'], undefined);
    const listed = await adminJson<Array<Record<string, unknown>>>(['webhooks', 'endpoints', '--member', DEMO.memberId]);
    assert.equal(listed.find((e) => e['webhookEndpointId'] === endpoint.webhookEndpointId)?.['status'], 'ENABLED');

    const before = receiver.received.filter((r) => r.headers['webhook-id'] === eventId).length;
    const requeued = await admin(['webhooks', 'redeliver', deliveryId]);
    assert.equal(requeued.code, 0, requeued.stderr);
    assert.match(requeued.stdout, new RegExp(`Delivery ${deliveryId} requeued`));
    const status = await eventually(() => deliveryStatus(deliveryId), (s) => s === 'SUCCEEDED');
    assert.equal(status, 'SUCCEEDED');
    const again = receiver.received.filter((r) => r.headers['webhook-id'] === eventId);
    assert.equal(again.length, before + 1, 'the receiver got the same webhook-id once more');
    const failed = await adminJson<FailedRow[]>(['webhooks', 'failed', '--member', DEMO.memberId]);
    assert.ok(!failed.some((d) => d.deliveryId === deliveryId), 'no longer listed as failed');
  });

  test('webhooks redeliver refuses a delivery that has not failed and an unknown id; enable refuses an unknown endpoint', async () => {
    assert.ok(deliveryId);
    assert.equal(await deliveryStatus(deliveryId), 'SUCCEEDED');
    const notFailed = await admin(['webhooks', 'redeliver', deliveryId]);
    assert.equal(notFailed.code, 1);
    assert.match(notFailed.stderr, /^error: NOT_FAILED: only a FAILED delivery can be redelivered/);
    assert.equal(await deliveryStatus(deliveryId), 'SUCCEEDED');

    for (const id of [randomUUID(), 'not-a-uuid']) {
      const unknown = await admin(['webhooks', 'redeliver', id]);
      assert.equal(unknown.code, 1, id);
      assert.match(unknown.stderr, /^error: NOT_FOUND: no webhook delivery has this id/);
    }
    const unknownEndpoint = await admin(['webhooks', 'enable', randomUUID()]);
    assert.equal(unknownEndpoint.code, 1);
    assert.match(unknownEndpoint.stderr, /^error: NOT_FOUND: no webhook endpoint has this id, or it is deleted/);
  });

  test('a missing --member or id is a usage error', async () => {
    for (const args of [['webhooks', 'endpoints'], ['webhooks', 'failed'], ['webhooks', 'failed', '--limit', '10']]) {
      const result = await admin(args);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, /^--member is required\n\nUsage:/);
      assert.match(result.stderr, /webhooks failed --member MEMBER_ID \[--limit N\]/);
    }
    const noDelivery = await admin(['webhooks', 'redeliver']);
    assert.equal(noDelivery.code, 2);
    assert.match(noDelivery.stderr, /^webhooks redeliver needs a DELIVERY_ID/);
    const noEndpoint = await admin(['webhooks', 'enable']);
    assert.equal(noEndpoint.code, 2);
    assert.match(noEndpoint.stderr, /^webhooks enable needs an ENDPOINT_ID/);
    assert.equal((await admin(['webhooks', 'explode'])).code, 2);
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
