// The cost of the shared rate limit on POST /v2/payouts: boots the service (embedded PostgreSQL,
// WORKERS=0) and drives payout creations with autocannon for BENCH_DURATION_S seconds, printing
// requests/s and latencies. Run it once as is and once with RATE_LIMIT_SHARED=false (each process
// counting alone) to compare: `node bench/rate-limit-cost.ts`.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { startTestService } from '../test/support/service.ts';
import { token } from '../test/support/http.ts';
import { payoutBody } from '../test/support/payouts.ts';

const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 5);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 10);

const service = await startTestService({ WORKERS: '0', WEBHOOK_WORKERS: '0', RATE_LIMIT_PER_MINUTE: '1000000' });
try {
  const accessToken = await token(service.url, { scope: 'payouts' });
  const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
  const run = (durationS: number) => autocannon({
    url: `${service.url}/v2/payouts`, connections: CONNECTIONS, duration: durationS,
    requests: [{ method: 'POST', path: '/v2/payouts', headers, setupRequest: (req) => ({ ...req, body: JSON.stringify(payoutBody('MX_SPEI', { sourceMemberPayoutId: `b-${randomUUID()}`, payoutAmt: 10 })) }) }],
  });
  await run(1); // warm-up
  const result = await run(DURATION_S);
  console.log(JSON.stringify({
    shared: process.env['RATE_LIMIT_SHARED'] !== 'false', requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50, p99Ms: result.latency.p99, non2xx: result.non2xx,
  }));
} finally {
  await service.stop();
}
