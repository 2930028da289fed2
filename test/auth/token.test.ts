// POST /oauth2/token: the client credentials grant and every RFC 6749 error it answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO, basic, json, requestToken } from '../support/http.ts';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(async () => {
  await service.stop();
});

const post = (body: string | undefined, headers: Record<string, string> = {}) =>
  fetch(`${service.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    ...(body === undefined ? {} : { body }),
  });

async function expectOAuthError(response: Response, status: number, error: string) {
  assert.equal(response.status, status);
  const body = await json(response);
  assert.equal(body['error'], error);
  assert.equal(typeof body['error_description'], 'string');
  assert.equal(response.headers.get('cache-control'), 'no-store');
  if (status === 401) assert.equal(response.headers.get('www-authenticate'), 'Basic realm="oauth2"');
}

describe('token issuance', () => {
  test('HTTP Basic credentials get a Bearer token with both scope keys and a 300 s lifetime', async () => {
    const response = await requestToken(service.url, { scope: 'payouts settlements' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const body = await json(response);
    assert.equal(body['token_type'], 'Bearer');
    assert.equal(body['expires_in'], 300);
    assert.equal(body['Scope'], 'payouts settlements');
    assert.equal(body['scope'], 'payouts settlements');
    assert.match(String(body['access_token']), /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const claims = JSON.parse(Buffer.from(String(body['access_token']).split('.')[1]!, 'base64url').toString());
    assert.equal(claims.sub, DEMO.memberId);
    assert.equal(claims.exp - claims.iat, 300);
  });

  test('credentials in the form body are accepted', async () => {
    const response = await post(`grant_type=client_credentials&scope=payouts&client_id=${DEMO.clientId}&client_secret=${DEMO.secret}`);
    assert.equal(response.status, 200);
    assert.equal((await json(response))['scope'], 'payouts');
  });

  test('the token carries exactly the requested scopes, once each', async () => {
    const body = await json(await requestToken(service.url, { scope: 'member member' }));
    assert.equal(body['scope'], 'member');
  });
});

describe('token errors (RFC 6749 section 5.2)', () => {
  const auth = { authorization: basic(DEMO.clientId, DEMO.secret) };

  test('wrong secret: 401 invalid_client', async () => {
    await expectOAuthError(await requestToken(service.url, { secret: 'wrong' }), 401, 'invalid_client');
  });
  test('unknown client: 401 invalid_client', async () => {
    await expectOAuthError(await requestToken(service.url, { clientId: 'nobody', secret: 'x' }), 401, 'invalid_client');
  });
  test('no client credentials at all: 401 invalid_client', async () => {
    await expectOAuthError(await post('grant_type=client_credentials&scope=payouts'), 401, 'invalid_client');
  });
  test('credentials both in Basic and in the body: invalid_request', async () => {
    await expectOAuthError(
      await post(`grant_type=client_credentials&scope=payouts&client_id=${DEMO.clientId}&client_secret=${DEMO.secret}`, auth),
      400,
      'invalid_request',
    );
  });
  test('a malformed Basic header: invalid_request', async () => {
    await expectOAuthError(await post('grant_type=client_credentials&scope=payouts', { authorization: 'Basic !!!' }), 400, 'invalid_request');
  });
  test('missing grant_type: invalid_request', async () => {
    await expectOAuthError(await post('scope=payouts', auth), 400, 'invalid_request');
  });
  test('another grant type: unsupported_grant_type', async () => {
    await expectOAuthError(await post('grant_type=password&scope=payouts', auth), 400, 'unsupported_grant_type');
  });
  test('missing scope: invalid_request', async () => {
    await expectOAuthError(await post('grant_type=client_credentials', auth), 400, 'invalid_request');
  });
  test('empty scope: invalid_request', async () => {
    await expectOAuthError(await post('grant_type=client_credentials&scope=', auth), 400, 'invalid_request');
  });
  test('an unknown scope: invalid_scope', async () => {
    await expectOAuthError(await post('grant_type=client_credentials&scope=payouts%20admin', auth), 400, 'invalid_scope');
  });
  test('a scope the client is not allowed: invalid_scope', async () => {
    const created = await service.app.services.clients.create({ memberId: DEMO.memberId, scopes: ['payouts'] });
    assert.ok(created.ok);
    const { client, secret } = created.value;
    await expectOAuthError(await requestToken(service.url, { clientId: client.clientId, secret, scope: 'settlements' }), 400, 'invalid_scope');
    assert.equal((await requestToken(service.url, { clientId: client.clientId, secret, scope: 'payouts' })).status, 200);
  });
  test('a repeated parameter: invalid_request', async () => {
    await expectOAuthError(await post('grant_type=client_credentials&scope=payouts&scope=member', auth), 400, 'invalid_request');
  });
  test('a JSON body: invalid_request, not 415', async () => {
    const response = await fetch(`${service.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ grant_type: 'client_credentials', scope: 'payouts' }),
    });
    await expectOAuthError(response, 400, 'invalid_request');
  });
  test('no body: invalid_request', async () => {
    await expectOAuthError(await fetch(`${service.url}/oauth2/token`, { method: 'POST', headers: auth }), 400, 'invalid_request');
  });
  test('a revoked client gets no new token', async () => {
    const created = await service.app.services.clients.create({ memberId: DEMO.memberId });
    assert.ok(created.ok);
    const { client, secret } = created.value;
    assert.equal((await requestToken(service.url, { clientId: client.clientId, secret })).status, 200);
    await service.app.services.clients.revoke(client.clientId);
    await expectOAuthError(await requestToken(service.url, { clientId: client.clientId, secret }), 401, 'invalid_client');
  });
  test('after rotation the old secret fails and the new one works', async () => {
    const created = await service.app.services.clients.create({ memberId: DEMO.memberId });
    assert.ok(created.ok);
    const rotated = await service.app.services.clients.rotate(created.value.client.clientId);
    assert.ok(rotated.ok);
    const clientId = created.value.client.clientId;
    await expectOAuthError(await requestToken(service.url, { clientId, secret: created.value.secret }), 401, 'invalid_client');
    assert.equal((await requestToken(service.url, { clientId, secret: rotated.value.secret })).status, 200);
  });
});
