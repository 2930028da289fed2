import { startTestService } from './test/support/service.ts';
import { DEMO, requestTokenFrom, requestFrom, bearer } from './test/support/http.ts';
const s = await startTestService({ WORKERS: '0', WEBHOOK_WORKERS: '0', RATE_LIMIT_PER_MINUTE: '1000000', AUTH_FAILURES_PER_ADDRESS_MAX: '100000', AUTH_FAILURES_PER_CLIENT_MAX: '100000' });
async function time(label: string, n: number, fn: (i: number) => Promise<Response>, expect: number) {
  for (let i = 0; i < 20; i++) await fn(i);
  const ms: number[] = [];
  for (let i = 0; i < n; i++) { const t = performance.now(); const r = await fn(i); ms.push(performance.now() - t); if (r.status !== expect) throw new Error(`${label}: ${r.status}`); }
  ms.sort((x, y) => x - y);
  console.log(`${label}: n=${n} p50=${ms[n / 2 | 0]!.toFixed(2)}ms p95=${ms[(n * 0.95) | 0]!.toFixed(2)}ms`);
}
const tok = (await (await requestTokenFrom('127.0.0.1', s.url, DEMO)).json() as { access_token: string }).access_token;
await time('token, right secret', 300, () => requestTokenFrom('127.0.0.1', s.url, DEMO), 200);
await time('token, wrong secret', 300, (i) => requestTokenFrom(`127.0.1.${i % 200 + 1}`, s.url, { clientId: DEMO.clientId, secret: 'wrong' }), 401);
await time('API call, valid token', 300, () => requestFrom('127.0.0.1', `${s.url}/v2/purpose-codes`, { headers: bearer(tok) }), 200);
await time('API call, junk token', 300, (i) => requestFrom(`127.0.2.${i % 200 + 1}`, `${s.url}/v2/purpose-codes`, { headers: bearer('junk') }), 401);
const limited = await startTestService({ WORKERS: '0', WEBHOOK_WORKERS: '0', RATE_LIMIT_PER_MINUTE: '1000000', AUTH_FAILURES_PER_ADDRESS_MAX: '1' });
await requestTokenFrom('127.0.0.3', limited.url, { clientId: 'x', secret: 'y' });
await time('token from a blocked address (429)', 300, () => requestTokenFrom('127.0.0.3', limited.url, { clientId: 'x', secret: 'y' }), 429);
await s.stop(); await limited.stop();
