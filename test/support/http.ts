import assert from 'node:assert/strict';
import http from 'node:http';
// Test support: small HTTP helpers over fetch.
export const DEMO = {
  clientId: 'demo-source-1',
  secret: 'demo-secret-1',
  memberId: 'DEMO_SOURCE_1',
} as const;
export const DEMO_2 = { clientId: 'demo-source-2', secret: 'demo-secret-2', memberId: 'DEMO_SOURCE_2' } as const;

export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
}

export async function requestToken(
  baseUrl: string,
  options: { clientId?: string; secret?: string; scope?: string; grantType?: string } = {},
) {
  const form = new URLSearchParams({ grant_type: options.grantType ?? 'client_credentials', scope: options.scope ?? 'payouts settlements member' });
  return fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic(options.clientId ?? DEMO.clientId, options.secret ?? DEMO.secret), 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
}

export async function token(baseUrl: string, options: Parameters<typeof requestToken>[1] = {}): Promise<string> {
  const response = await requestToken(baseUrl, options);
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

export function bearer(accessToken: string): Record<string, string> {
  return { authorization: `Bearer ${accessToken}` };
}

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** Asserts the contract's Error body: status, code, the three keys, and the detail when given. */
export async function expectError(response: Response, status: number, code: string, detail?: RegExp): Promise<Record<string, unknown>> {
  assert.equal(response.status, status);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const body = await json(response);
  assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'message']);
  assert.equal(body['code'], code);
  if (detail) assert.match(String(body['detail']), detail);
  return body;
}

/**
 * A request sent from the given local address (any 127.x.y.z reaches the loopback server on
 * Linux), so that tests can play several source addresses. Answers as a fetch Response.
 */
export function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: init.method ?? 'GET', headers: init.headers, localAddress, agent: false }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const one of Array.isArray(value) ? value : [value ?? '']) headers.append(name, one);
        }
        const status = incoming.statusCode ?? 0;
        resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers }));
      });
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

/** A client credentials token request from the given local address, with extra headers (X-Forwarded-For). */
export function requestTokenFrom(
  localAddress: string,
  baseUrl: string,
  credentials: { clientId: string; secret: string },
  headers: Record<string, string> = {},
): Promise<Response> {
  return requestFrom(localAddress, `${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic(credentials.clientId, credentials.secret), 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'payouts member' }).toString(),
  });
}
