// Input that parses but must not be taken in: NUL and unpaired surrogates in any text (bodies,
// keys, query strings, path parameters, form fields), JSON objects that repeat a key, and URLs
// the router refuses (malformed percent-encoding, an over-long path parameter). Each is a 400
// with the Error body naming the field (the token endpoint answers in RFC 6749 form) and stores
// nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { startTestService, type TestService } from '../support/service.ts';
import { basic, bearer, DEMO, expectError, json, token } from '../support/http.ts';
import { payoutBody } from '../support/payouts.ts';

let service: TestService;
let accessToken: string;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  accessToken = await token(service.url, { scope: 'payouts member' });
});
after(async () => {
  await service.stop();
});

async function payoutCount(): Promise<number> {
  const { rows } = await service.db.query<{ n: string }>('SELECT count(*) AS n FROM payouts');
  return Number(rows[0]!.n);
}

/** POST /v2/payouts with the body text exactly as given. */
const createRaw = (text: string) =>
  fetch(`${service.url}/v2/payouts`, { method: 'POST', headers: { ...bearer(accessToken), 'content-type': 'application/json' }, body: text });

/** A request whose path goes on the wire byte for byte (fetch would normalise some of them). */
function rawGet(path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Record<string, unknown> }> {
  const { hostname, port } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const request = http.request({ hostname, port, path, method: 'GET', headers: bearer(accessToken) }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: JSON.parse(text) as Record<string, unknown> }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('NUL and unpaired surrogates', () => {
  test('in a JSON field: 400 VALIDATION_ERROR naming it, nothing created', async () => {
    const before = await payoutCount();
    const body = JSON.stringify(payoutBody('MX_SPEI', { sender: { firstName: 'Jo\u0000hn', lastName: 'Smith', countryCode: 'US' } }));
    await expectError(await createRaw(body), 400, 'VALIDATION_ERROR', /^sender\.firstName: must not contain NUL/);
    const surrogate = JSON.stringify(payoutBody('MX_SPEI')).replace('"Maria"', '"Ma\\ud800ria"');
    await expectError(await createRaw(surrogate), 400, 'VALIDATION_ERROR', /^beneficiary\.firstName: .*unpaired surrogate/);
    const lowSurrogate = JSON.stringify(payoutBody('MX_SPEI')).replace('"Lopez"', '"\\udc00"');
    await expectError(await createRaw(lowSurrogate), 400, 'VALIDATION_ERROR', /^beneficiary\.lastName: /);
    const inSourceId = JSON.stringify(payoutBody('MX_SPEI', { sourceMemberPayoutId: 'abc\u0000' }));
    await expectError(await createRaw(inSourceId), 400, 'VALIDATION_ERROR', /^sourceMemberPayoutId: /);
    assert.equal(await payoutCount(), before);
  });

  test('a pair of surrogates (an emoji) is text like any other', async () => {
    const body = JSON.stringify(payoutBody('MX_SPEI', { purposeOfPayment: undefined })).replace('"Maria"', '"Maria \\ud83d\\ude00"');
    const response = await createRaw(body);
    assert.notEqual(response.status, 500);
    assert.ok(response.status === 201 || response.status === 400, `status ${response.status}`);
  });

  test('in a JSON key: 400 naming the key', async () => {
    const text = JSON.stringify(payoutBody('MX_SPEI')).replace('{', '{"a\\u0000b":1,');
    await expectError(await createRaw(text), 400, 'VALIDATION_ERROR', /^a\u0000b: must not contain NUL/);
  });

  test('in a query filter: 400 naming the parameter', async () => {
    const response = await fetch(`${service.url}/v2/payouts?senderName=Jo%00hn`, { headers: bearer(accessToken) });
    await expectError(response, 400, 'VALIDATION_ERROR', /^senderName: must not contain NUL/);
  });

  test('in a path parameter: 400 naming the parameter', async () => {
    const response = await rawGet('/v2/payouts/abc%00def');
    assert.equal(response.status, 400);
    assert.equal(response.body['code'], 'VALIDATION_ERROR');
    assert.match(String(response.body['detail']), /^payoutId: must not contain NUL/);
  });

  test('in a token form field: 400 invalid_request naming it (RFC 6749 form)', async () => {
    for (const field of ['client_id', 'client_secret', 'scope', 'grant_type']) {
      const form = new URLSearchParams({ grant_type: 'client_credentials', scope: 'payouts', client_id: DEMO.clientId, client_secret: DEMO.secret });
      form.set(field, `${form.get(field)}\u0000`);
      const response = await fetch(`${service.url}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
      assert.equal(response.status, 400, field);
      const body = await json(response);
      assert.equal(body['error'], 'invalid_request');
      assert.match(String(body['error_description']), new RegExp(`^${field}: must not contain NUL`));
    }
  });

  test('in the token endpoint\'s query string: 400 invalid_request (RFC 6749 form), not a 500', async () => {
    const response = await fetch(`${service.url}/oauth2/token?scope=%00`, {
      method: 'POST',
      headers: { authorization: basic(DEMO.clientId, DEMO.secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'payouts' }),
    });
    assert.equal(response.status, 400);
    assert.deepEqual(await json(response), { error: 'invalid_request', error_description: 'scope: must not contain NUL (U+0000) or an unpaired surrogate' });
    assert.match(String(response.headers.get('x-request-id')), /^[0-9a-f-]{36}$/);
  });

  test('a token request whose Content-Type cannot be read: 400 invalid_request (RFC 6749 form), not a 415 Error body', async () => {
    for (const contentType of [';', 'application/json', 'text/plain']) {
      const response = await fetch(`${service.url}/oauth2/token`, {
        method: 'POST', headers: { authorization: basic(DEMO.clientId, DEMO.secret), 'content-type': contentType }, body: 'grant_type=client_credentials&scope=payouts',
      });
      assert.equal(response.status, 400, contentType);
      assert.deepEqual(await json(response), { error: 'invalid_request', error_description: 'the body must be application/x-www-form-urlencoded' });
    }
  });

  test('in HTTP Basic credentials: 400 invalid_request', async () => {
    const response = await fetch(`${service.url}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: basic(`${DEMO.clientId}\u0000`, DEMO.secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'payouts' }),
    });
    assert.equal(response.status, 400);
    assert.equal((await json(response))['error'], 'invalid_request');
  });
});

describe('repeated JSON keys', () => {
  test('at the top level: 400 naming the key, nothing created', async () => {
    const before = await payoutCount();
    const text = JSON.stringify(payoutBody('MX_SPEI')).replace('"payoutAmt":1000', '"payoutAmt":1000,"payoutAmt":900000');
    await expectError(await createRaw(text), 400, 'VALIDATION_ERROR', /^payoutAmt: must appear only once$/);
    assert.equal(await payoutCount(), before);
  });

  test('nested, and written with an escape: the key is compared as decoded', async () => {
    const nested = JSON.stringify(payoutBody('MX_SPEI')).replace('"accountNumber":', '"accountNumber":"012180000118359711","accountNumber":');
    await expectError(await createRaw(nested), 400, 'VALIDATION_ERROR', /^beneficiary\.accountNumber: must appear only once$/);
    const escaped = JSON.stringify(payoutBody('MX_SPEI')).replace('"payoutAmt":1000', '"payoutAmt":1000,"p\\u0061youtAmt":5');
    await expectError(await createRaw(escaped), 400, 'VALIDATION_ERROR', /^payoutAmt: must appear only once$/);
  });

  test('the same key in sibling objects is no repeat', async () => {
    const response = await createRaw(JSON.stringify(payoutBody('MX_SPEI')));
    assert.equal(response.status, 201); // firstName and lastName appear in both sender and beneficiary
  });
});

describe('deeply nested JSON', () => {
  test('deeper than 32 levels: 400 saying so, however deep, without walking it (no stack overflow taken for malformed JSON)', async () => {
    for (const depth of [33, 3_000, 30_000]) {
      const text = `{"x":${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}}`;
      await expectError(await createRaw(text), 400, 'VALIDATION_ERROR', /^body: at most 32 levels of objects and arrays$/);
    }
    const objects = `${'{"a":'.repeat(10_000)}{"b":1,"b":2}${'}'.repeat(10_000)}`;
    await expectError(await createRaw(objects), 400, 'VALIDATION_ERROR', /^body: at most 32 levels/);
  });

  test('brackets inside strings are text, not nesting', async () => {
    const body = JSON.stringify(payoutBody('MX_SPEI', { sourceMemberPayoutId: `t-${'['.repeat(40)}` }));
    assert.equal((await createRaw(body)).status, 201);
  });
});

describe('URLs the router refuses', () => {
  test('malformed percent-encoding: 400 with the Error body and a request id', async () => {
    for (const path of ['/v2/payouts/%E0%A4%A', '/v2/payouts/%zz', '/v2/payouts/%ED%A0%80']) {
      const response = await rawGet(path);
      assert.equal(response.status, 400, path);
      assert.deepEqual(Object.keys(response.body).sort(), ['code', 'detail', 'message']);
      assert.equal(response.body['code'], 'VALIDATION_ERROR');
      assert.equal(response.body['detail'], 'path: malformed percent-encoding');
      assert.match(String(response.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
    }
  });

  test('a path parameter over 200 characters: 400 with the Error body, the URL not echoed', async () => {
    const response = await rawGet(`/v2/payouts/${'a'.repeat(201)}`);
    assert.equal(response.status, 400);
    assert.equal(response.body['code'], 'VALIDATION_ERROR');
    assert.equal(response.body['detail'], 'path: a path parameter is longer than 200 characters');
    assert.doesNotMatch(JSON.stringify(response.body), /aaaa/);
  });
});

describe('requests the HTTP parser refuses', () => {
  /** Writes the request bytes as given (a second request once the first is answered) and reads until the server closes. */
  function rawExchange(request: string, next?: string): Promise<string> {
    const { hostname, port } = new URL(service.url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => socket.write(request));
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (next !== undefined && text.includes('\r\n\r\n{')) {
          socket.write(next);
          next = undefined;
        }
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
  }

  function expectRefusal(answer: string, detail: string) {
    const [head, body] = answer.split('\r\n\r\n');
    assert.match(head!, /^HTTP\/1\.1 400 /);
    assert.match(head!, /\r\nx-request-id: [0-9a-f-]{36}\r\n/);
    assert.match(head!, /\r\ncontent-type: application\/json; charset=utf-8\r\n/);
    assert.match(head!, /\r\nx-content-type-options: nosniff\r\n/);
    assert.match(head!, /\r\nconnection: close\r\n/);
    assert.deepEqual(JSON.parse(body!), { code: 'VALIDATION_ERROR', message: 'The request is not valid HTTP.', detail });
  }

  test('headers over the size limit: 400 with the Error body and a request id, not Node\'s own 431', async () => {
    const answer = await rawExchange(`GET /v2/payouts HTTP/1.1\r\nHost: x\r\nx-filler: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectRefusal(answer, 'headers: at most 16384 bytes in all');
  });

  test('on a kept-alive connection, after an answered request: the refusal is still answered', async () => {
    const oversized = `GET /v2/payouts HTTP/1.1\r\nHost: x\r\nx-filler: ${'a'.repeat(20_000)}\r\n\r\n`;
    const answer = await rawExchange('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', oversized);
    const second = answer.slice(answer.indexOf('HTTP/1.1', 1));
    assert.match(answer, /^HTTP\/1\.1 200 /);
    expectRefusal(second, 'headers: at most 16384 bytes in all');
  });

  test('HEAD with headers over the limit: the same answer without its body', async () => {
    const answer = await rawExchange(`HEAD /v2/payouts HTTP/1.1\r\nHost: x\r\nx-filler: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 400 [^]*\r\nx-request-id: [0-9a-f-]{36}\r\n[^]*\r\n\r\n$/);
  });

  test('malformed HTTP: 400 with the Error body and a request id', async () => {
    expectRefusal(await rawExchange('GET /v2/payouts HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'), 'request: malformed HTTP');
  });
});
