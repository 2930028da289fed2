// Bearer verification on /v2 routes: missing, malformed, tampered, forged, expired, revoked
// tokens, and scope refusal with its WWW-Authenticate challenge.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.ts';
import { DEMO, bearer, json, token } from '../support/http.ts';
import { createTokenSigner } from '../../src/auth/tokens.ts';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(async () => {
  await service.stop();
});

const codes = (headers: Record<string, string> = {}) => fetch(`${service.url}/v2/purpose-codes`, { headers });

async function expectUnauthorized(response: Response, challenge: string) {
  assert.equal(response.status, 401);
  assert.equal(response.headers.get('www-authenticate'), challenge);
  const body = await json(response);
  assert.equal(body['code'], 'UNAUTHORIZED');
  assert.equal(typeof body['message'], 'string');
  assert.match(String(body['detail']), /^Authorization: /);
}

async function sandboxSigner() {
  const keys = JSON.parse(await fs.readFile(path.join(service.dataDir, 'keys.json'), 'utf8')) as { tokenSigningKey: string };
  return createTokenSigner(Buffer.from(keys.tokenSigningKey, 'base64'));
}

describe('bearer tokens', () => {
  test('a valid token with the scope is accepted', async () => {
    assert.equal((await codes(bearer(await token(service.url, { scope: 'payouts' })))).status, 200);
  });

  test('no token: 401 with a bare Bearer challenge', async () => {
    await expectUnauthorized(await codes(), 'Bearer');
  });

  test('not a Bearer header: 401 invalid_token', async () => {
    await expectUnauthorized(await codes({ authorization: 'Token abc' }), 'Bearer error="invalid_token"');
  });

  test('a malformed token: 401 invalid_token', async () => {
    await expectUnauthorized(await codes(bearer('not-a-jwt')), 'Bearer error="invalid_token"');
  });

  test('a tampered token (payload changed): 401 invalid_token', async () => {
    const [header, payload, signature] = (await token(service.url)).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    claims.sub = 'DEMO_SOURCE_2';
    const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    await expectUnauthorized(await codes(bearer(forged)), 'Bearer error="invalid_token"');
  });

  test('a token signed with another key: 401 invalid_token', async () => {
    const other = createTokenSigner(randomBytes(32));
    const forged = await other.sign({ memberId: DEMO.memberId, clientId: DEMO.clientId, scopes: ['payouts'] });
    await expectUnauthorized(await codes(bearer(forged)), 'Bearer error="invalid_token"');
  });

  test('an unsigned (alg none) token: 401 invalid_token', async () => {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${enc({ alg: 'none', typ: 'at+jwt' })}.${enc({ sub: DEMO.memberId, client_id: DEMO.clientId, scope: 'payouts', iat: now, exp: now + 300 })}.`;
    await expectUnauthorized(await codes(bearer(unsigned)), 'Bearer error="invalid_token"');
  });

  test('an expired token: 401 invalid_token, detail says expired', async () => {
    const signer = await sandboxSigner();
    const expired = await signer.sign({ memberId: DEMO.memberId, clientId: DEMO.clientId, scopes: ['payouts'] }, Math.floor(Date.now() / 1000) - 400);
    const response = await codes(bearer(expired));
    assert.equal(response.status, 401);
    assert.match(String((await json(response))['detail']), /expired/);
  });

  test('a token without the route scope: 403 INSUFFICIENT_SCOPE with the needed scope', async () => {
    const response = await codes(bearer(await token(service.url, { scope: 'settlements member' })));
    assert.equal(response.status, 403);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="payouts"');
    const body = await json(response);
    assert.equal(body['code'], 'INSUFFICIENT_SCOPE');
    assert.match(String(body['detail']), /payouts/);
  });

  test("a revoked client's live token stops working", async () => {
    const created = await service.app.services.clients.create({ memberId: DEMO.memberId });
    assert.ok(created.ok);
    const live = await token(service.url, { clientId: created.value.client.clientId, secret: created.value.secret, scope: 'payouts' });
    assert.equal((await codes(bearer(live))).status, 200);
    await service.app.services.clients.revoke(created.value.client.clientId);
    await expectUnauthorized(await codes(bearer(live)), 'Bearer error="invalid_token"');
  });

  test('a revocation made elsewhere (another process) reaches live tokens within the cache lifetime', async () => {
    const created = await service.app.services.clients.create({ memberId: DEMO.memberId });
    assert.ok(created.ok);
    const live = await token(service.url, { clientId: created.value.client.clientId, secret: created.value.secret, scope: 'payouts' });
    assert.equal((await codes(bearer(live))).status, 200);
    // straight in the database, as the admin CLI of another process would
    await service.db.query('UPDATE oauth_clients SET revoked_at = now() WHERE client_id = $1', [created.value.client.clientId]);
    const deadline = Date.now() + 5000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await codes(bearer(live))).status;
    }
    assert.equal(status, 401);
  });
});
