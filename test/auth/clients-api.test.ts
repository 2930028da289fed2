// /v2/oauth-clients: a member creates, lists, rotates and revokes its own clients (scope member).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO, DEMO_2, bearer, json, requestToken, token } from '../support/http.ts';

let service: TestService;
let memberToken: string;
before(async () => {
  service = await startTestService();
  memberToken = await token(service.url, { scope: 'member' });
});
after(async () => {
  await service.stop();
});

const call = (method: string, path: string, body?: unknown, accessToken = memberToken) =>
  fetch(`${service.url}${path}`, {
    method,
    headers: { ...bearer(accessToken), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe('OAuth clients API', () => {
  test('create answers 201 with Location and the secret once; the secret gets a token', async () => {
    const response = await call('POST', '/v2/oauth-clients', { name: 'backend', scopes: ['payouts'] });
    assert.equal(response.status, 201);
    const body = await json(response);
    assert.equal(response.headers.get('location'), `/v2/oauth-clients/${body['clientId']}`);
    assert.deepEqual(body['allowedScopes'], ['payouts']);
    assert.match(String(body['clientSecret']), /^cs_[\w-]{43}$/);
    assert.deepEqual(Object.keys(body).sort(), ['allowedScopes', 'clientId', 'clientSecret', 'createdAt', 'name', 'revokedAt', 'rotatedAt']);
    const list = await json<Array<Record<string, unknown>>>(await call('GET', '/v2/oauth-clients'));
    const listed = list.find((c) => c['clientId'] === body['clientId']);
    assert.ok(listed);
    assert.equal(listed['clientSecret'], undefined);
    assert.equal((await requestToken(service.url, { clientId: String(body['clientId']), secret: String(body['clientSecret']), scope: 'payouts' })).status, 200);
  });

  test('the list holds only the caller’s clients', async () => {
    const list = await json<Array<Record<string, unknown>>>(await call('GET', '/v2/oauth-clients'));
    assert.ok(list.some((c) => c['clientId'] === DEMO.clientId));
    assert.ok(!list.some((c) => c['clientId'] === DEMO_2.clientId));
  });

  test('rotate returns a new secret and the old one stops working', async () => {
    const created = await json(await call('POST', '/v2/oauth-clients', {}));
    const rotated = await call('POST', `/v2/oauth-clients/${created['clientId']}/rotate`);
    assert.equal(rotated.status, 200);
    const body = await json(rotated);
    assert.notEqual(body['clientSecret'], created['clientSecret']);
    assert.equal(typeof body['rotatedAt'], 'string');
    const clientId = String(created['clientId']);
    assert.equal((await requestToken(service.url, { clientId, secret: String(created['clientSecret']) })).status, 401);
    assert.equal((await requestToken(service.url, { clientId, secret: String(body['clientSecret']) })).status, 200);
  });

  test('revoke answers 204; the client gets no tokens; rotating it is 409 INVALID_STATE', async () => {
    const created = await json(await call('POST', '/v2/oauth-clients', {}));
    assert.equal((await call('DELETE', `/v2/oauth-clients/${created['clientId']}`)).status, 204);
    assert.equal((await requestToken(service.url, { clientId: String(created['clientId']), secret: String(created['clientSecret']) })).status, 401);
    const rotate = await call('POST', `/v2/oauth-clients/${created['clientId']}/rotate`);
    assert.equal(rotate.status, 409);
    assert.equal((await json(rotate))['code'], 'INVALID_STATE');
  });

  test("another member's client is 404 NOT_FOUND, as an unknown one", async () => {
    for (const clientId of [DEMO_2.clientId, 'no-such-client']) {
      for (const [method, path] of [['POST', `/v2/oauth-clients/${clientId}/rotate`], ['DELETE', `/v2/oauth-clients/${clientId}`]] as const) {
        const response = await call(method, path);
        assert.equal(response.status, 404, `${method} ${path}`);
        assert.equal((await json(response))['code'], 'NOT_FOUND');
      }
    }
    assert.equal((await requestToken(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret })).status, 200);
  });

  test('an unknown scope in the body is 400 VALIDATION_ERROR naming the field', async () => {
    const response = await call('POST', '/v2/oauth-clients', { scopes: ['admin'] });
    assert.equal(response.status, 400);
    const body = await json(response);
    assert.equal(body['code'], 'VALIDATION_ERROR');
    assert.match(String(body['detail']), /^scopes\[0\]: must be one of payouts, settlements, member$/);
  });

  test('the payouts scope is not enough: 403', async () => {
    const response = await call('GET', '/v2/oauth-clients', undefined, await token(service.url, { scope: 'payouts' }));
    assert.equal(response.status, 403);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="member"');
  });
});
