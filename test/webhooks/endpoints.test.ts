// Webhook endpoints through the API (register, list, get, delete, every refusal), the URL policy
// of each mode, the production guard on connections, and sealed secrets.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO_2, bearer, expectError, json, token } from '../support/http.ts';
import { startReceiver } from '../support/receiver.ts';
import { checkEndpointUrl, isPublicAddress } from '../../src/webhooks/url-policy.ts';
import { createSender } from '../../src/webhooks/sender.ts';
import { createSecretBox, generateEndpointSecret } from '../../src/webhooks/secrets.ts';
import { ENDPOINTS_PER_MEMBER_MAX } from '../../src/webhooks/endpoints.ts';

let service: TestService;
let member: string;
before(async () => {
  service = await startTestService({ WORKERS: '0', WEBHOOK_WORKERS: '0' });
  member = await token(service.url, { scope: 'member' });
});
after(async () => {
  await service.stop();
});

const post = (body: unknown, accessToken = member) => fetch(`${service.url}/v2/webhook-endpoints`, {
  method: 'POST', headers: { ...bearer(accessToken), 'content-type': 'application/json' }, body: JSON.stringify(body),
});
const listed = async (accessToken = member) => json<Array<Record<string, unknown>>>(await fetch(`${service.url}/v2/webhook-endpoints`, { headers: bearer(accessToken) }));
const remove = (id: string, accessToken = member) => fetch(`${service.url}/v2/webhook-endpoints/${id}`, { method: 'DELETE', headers: bearer(accessToken) });

describe('the endpoints API', () => {
  test('register: 201 with Location and the secret once; list and get never show it; delete: 204, then 404', async () => {
    const response = await post({ url: 'https://hooks.example.com/a', eventTypes: ['settlement.status_changed'] });
    assert.equal(response.status, 201);
    const created = await json(response);
    const id = created['webhookEndpointId'] as string;
    assert.equal(response.headers.get('location'), `/v2/webhook-endpoints/${id}`);
    assert.match(created['secret'] as string, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from((created['secret'] as string).slice(6), 'base64').length, 32);
    const { secret, ...withoutSecret } = created;
    assert.match(withoutSecret['creationTime'] as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual({ ...withoutSecret, creationTime: 'checked', webhookEndpointId: 'checked' }, {
      webhookEndpointId: 'checked', url: 'https://hooks.example.com/a', eventTypes: ['settlement.status_changed'],
      creationTime: 'checked', status: 'ENABLED', statusReason: null,
    });
    const all = await listed();
    const mine = all.find((e) => e['webhookEndpointId'] === id)!;
    assert.deepEqual(mine, withoutSecret);
    assert.ok(all.every((e) => !('secret' in e)));
    const one = await fetch(`${service.url}/v2/webhook-endpoints/${id}`, { headers: bearer(member) });
    assert.equal(one.status, 200);
    assert.deepEqual(await json(one), mine);
    // the database holds the secret sealed, not as given
    const { rows } = await service.db.query<{ sealed: string }>('SELECT secret_sealed AS sealed FROM webhook_endpoints WHERE webhook_endpoint_id = $1', [id]);
    assert.ok(!rows[0]!.sealed.includes((secret as string).slice(6)));
    assert.equal((await remove(id)).status, 204);
    await expectError(await fetch(`${service.url}/v2/webhook-endpoints/${id}`, { headers: bearer(member) }), 404, 'NOT_FOUND', /webhookEndpointId/);
    await expectError(await remove(id), 404, 'NOT_FOUND', /webhookEndpointId/);
    assert.ok(!(await listed()).some((e) => e['webhookEndpointId'] === id));
  });

  test('eventTypes left out means every type', async () => {
    const created = await json(await post({ url: 'http://localhost:9/hooks' }));
    assert.deepEqual(created['eventTypes'], ['payout.status_changed', 'payout.cancellation_status_changed', 'payout.review_status_changed', 'settlement.status_changed',
      'settlement.review_opened', 'settlement.review_resolved']);
    assert.equal((await remove(created['webhookEndpointId'] as string)).status, 204);
  });

  test('schema refusals are 400 naming the field, and create nothing', async () => {
    const before = (await listed()).length;
    await expectError(await post({}), 400, 'VALIDATION_ERROR', /url/);
    await expectError(await post({ url: '' }), 400, 'VALIDATION_ERROR', /url/);
    await expectError(await post({ url: 'https://a.example.com', eventTypes: [] }), 400, 'VALIDATION_ERROR', /eventTypes/);
    await expectError(await post({ url: 'https://a.example.com', eventTypes: ['payout.created'] }), 400, 'VALIDATION_ERROR', /eventTypes/);
    await expectError(await post({ url: 'https://a.example.com', eventTypes: ['payout.status_changed', 'payout.status_changed'] }), 400, 'VALIDATION_ERROR', /eventTypes/);
    await expectError(await post({ url: 'https://a.example.com', secret: 'mine' }), 400, 'VALIDATION_ERROR', /secret/);
    await expectError(await post({ url: `https://a.example.com/${'x'.repeat(2048)}` }), 400, 'VALIDATION_ERROR', /url/);
    assert.equal((await listed()).length, before);
  });

  test('URL refusals in sandbox: not absolute, not http(s), credentials, fragment, http away from this machine', async () => {
    await expectError(await post({ url: 'hooks.example.com/a' }), 400, 'VALIDATION_ERROR', /^url: must be an absolute URL$/);
    await expectError(await post({ url: 'ftp://hooks.example.com/a' }), 400, 'VALIDATION_ERROR', /^url: must use https$/);
    await expectError(await post({ url: 'https://user:pw@hooks.example.com/a' }), 400, 'VALIDATION_ERROR', /^url: must not carry credentials$/);
    await expectError(await post({ url: 'https://hooks.example.com/a#x' }), 400, 'VALIDATION_ERROR', /^url: must not have a fragment$/);
    await expectError(await post({ url: 'http://hooks.example.com/a' }), 400, 'VALIDATION_ERROR', /^url: must use https \(http is allowed to this machine only, in sandbox\)$/);
    await expectError(await post({ url: 'http://10.0.0.8/a' }), 400, 'VALIDATION_ERROR', /^url: must use https/);
    for (const url of ['http://127.0.0.1:8000/a', 'http://[::1]:8000/a', 'http://localhost/a', 'https://10.0.0.8/a']) {
      const response = await post({ url });
      assert.equal(response.status, 201, url);
      assert.equal((await remove((await json(response))['webhookEndpointId'] as string)).status, 204);
    }
  });

  test(`at most ${ENDPOINTS_PER_MEMBER_MAX} endpoints per member: the next is 409 INVALID_STATE`, async () => {
    const ids: string[] = [];
    try {
      while ((await listed()).length < ENDPOINTS_PER_MEMBER_MAX) ids.push((await json(await post({ url: 'https://hooks.example.com/many' })))['webhookEndpointId'] as string);
      await expectError(await post({ url: 'https://hooks.example.com/one-more' }), 409, 'INVALID_STATE', /at most 16 per member/);
    } finally {
      for (const id of ids) await remove(id);
    }
  });

  test("scope member is needed, and another member's endpoint is 404 everywhere", async () => {
    const payoutsOnly = await token(service.url, { scope: 'payouts' });
    await expectError(await post({ url: 'https://hooks.example.com/a' }, payoutsOnly), 403, 'INSUFFICIENT_SCOPE');
    await expectError(await fetch(`${service.url}/v2/webhook-endpoints`, { headers: bearer(payoutsOnly) }), 403, 'INSUFFICIENT_SCOPE');
    await expectError(await fetch(`${service.url}/v2/webhook-endpoints`), 401, 'UNAUTHORIZED');
    const id = (await json(await post({ url: 'https://hooks.example.com/a' })))['webhookEndpointId'] as string;
    const other = await token(service.url, { ...DEMO_2, scope: 'member' });
    await expectError(await fetch(`${service.url}/v2/webhook-endpoints/${id}`, { headers: bearer(other) }), 404, 'NOT_FOUND');
    await expectError(await remove(id, other), 404, 'NOT_FOUND');
    assert.ok(!(await listed(other)).some((e) => e['webhookEndpointId'] === id));
    assert.equal((await remove(id)).status, 204);
    await expectError(await remove('not-a-uuid'), 404, 'NOT_FOUND');
  });
});

describe('the URL policy', () => {
  test('production: https only, and never a private, loopback, link-local or reserved address', async () => {
    assert.deepEqual(await checkEndpointUrl('https://93.184.216.34/hooks', 'production'), { ok: true, url: 'https://93.184.216.34/hooks' });
    assert.deepEqual(await checkEndpointUrl('https://[2606:2800:220:1:248:1893:25c8:1946]/h', 'production'), { ok: true, url: 'https://[2606:2800:220:1:248:1893:25c8:1946]/h' });
    for (const url of ['http://93.184.216.34/hooks', 'http://localhost/h', 'http://127.0.0.1/h']) {
      assert.deepEqual(await checkEndpointUrl(url, 'production'), { ok: false, detail: 'url: must use https' }, url);
    }
    for (const url of [
      'https://127.0.0.1/h', 'https://10.1.2.3/h', 'https://172.16.0.1/h', 'https://192.168.1.1/h', 'https://169.254.169.254/latest',
      'https://100.64.0.1/h', 'https://0.0.0.0/h', 'https://[::1]/h', 'https://[fe80::1]/h', 'https://[fd00::1]/h', 'https://[::ffff:127.0.0.1]/h',
      'https://224.0.0.1/h', 'https://[::127.0.0.1]/h', 'https://[2002:7f00:1::1]/h', 'https://[2002:a9fe:a9fe::]/latest',
    ]) {
      const checked = await checkEndpointUrl(url, 'production');
      assert.deepEqual(checked, { ok: false, detail: 'url: points to a private, loopback or reserved address' }, url);
    }
    assert.deepEqual(await checkEndpointUrl('https://localhost/h', 'production'), { ok: false, detail: 'url: points to a loopback address' });
    assert.deepEqual(await checkEndpointUrl('https://api.localhost/h', 'production'), { ok: false, detail: 'url: points to a loopback address' });
    assert.deepEqual(await checkEndpointUrl('https://no-such-host.invalid/h', 'production'), { ok: false, detail: 'url: host no-such-host.invalid does not resolve' });
  });

  test('addresses: public ones pass, every special range does not', () => {
    for (const a of ['8.8.8.8', '93.184.216.34', '2606:4700::1111']) assert.equal(isPublicAddress(a), true, a);
    for (const a of ['127.0.0.1', '10.0.0.1', '172.31.255.255', '192.168.0.1', '169.254.0.1', '100.127.0.1', '::1', '::', 'fc00::1', 'fe80::1', '::ffff:10.0.0.1', 'not-an-ip']) {
      assert.equal(isPublicAddress(a), false, a);
    }
  });

  test('addresses: IPv6 forms that carry an IPv4 address are judged as that address', () => {
    const inside = [
      '::127.0.0.1', '::7f00:1', '::a00:1', '::192.168.1.1', // IPv4-compatible
      '::ffff:7f00:1', '::ffff:a00:1', '::ffff:0:10.0.0.1', '::ffff:0:a9fe:a9fe', // mapped (hex) and translated
      '2002:7f00:1::', '2002:c0a8:101::1', '2002:a9fe:a9fe:1::1', '2002:a00:1::', // 6to4
    ];
    for (const a of inside) assert.equal(isPublicAddress(a), false, a);
    for (const a of ['2002:808:808::1', '::ffff:808:808', '::8.8.8.8']) assert.equal(isPublicAddress(a), true, a);
  });

  test('production deliveries never connect to a name that resolves inside (DNS rebinding): refused before any byte is sent', async () => {
    const receiver = await startReceiver();
    const sender = createSender({ mode: 'production', timeoutMs: 2000, connectionsPerEndpointMax: 2 });
    try {
      const port = new URL(receiver.url).port;
      const result = await sender.send({ webhookEndpointId: 'e1', url: `http://localhost:${port}/hooks` }, { 'content-type': 'application/json' }, '{}');
      assert.equal(result.status, null);
      assert.match(result.error ?? '', /EADDRNOTALLOWED|non-public address/);
      assert.equal(receiver.received.length, 0);
      // the same receiver is reached in sandbox mode
      const sandbox = createSender({ mode: 'sandbox', timeoutMs: 2000, connectionsPerEndpointMax: 2 });
      assert.equal((await sandbox.send({ webhookEndpointId: 'e1', url: `http://localhost:${port}/hooks` }, {}, '{}')).status, 200);
      await sandbox.close();
      assert.equal(receiver.received.length, 1);
    } finally {
      await sender.close();
      await receiver.close();
    }
  });
});

test('secrets: sealed and opened under the key, refused under another key', () => {
  const secret = generateEndpointSecret();
  const box = createSecretBox(Buffer.alloc(32, 7));
  const sealed = box.seal(secret);
  assert.notEqual(sealed, box.seal(secret), 'a fresh nonce each time');
  assert.equal(box.open(sealed), secret);
  assert.throws(() => createSecretBox(Buffer.alloc(32, 8)).open(sealed));
  assert.throws(() => box.open('v0.abc'), /unknown form/);
});
