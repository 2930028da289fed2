// Traces (OpenTelemetry, exported to memory here): a request is a server span with its SQL
// statements as child spans, and outgoing calls carry the trace in a W3C traceparent header.
import { spans, tracing } from '../support/tracing.ts'; // first: before pg and undici are loaded
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind, trace } from '@opentelemetry/api';
import { startTestService, type TestService } from '../support/service.ts';
import { token } from '../support/http.ts';
import { eventually, payoutBody } from '../support/payouts.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { createSender } from '../../src/webhooks/sender.ts';
import { Agent } from 'undici';
import { createHttpRail } from '../../src/payouts/rails/http.ts';
import { createHttpRateSource } from '../../src/settlements/http-rate-source.ts';
import type { PayoutForRail } from '../../src/payouts/rails/rail.ts';
import { newKey } from '../support/partners.ts';

let service: TestService;
let receiver: Receiver;
before(async () => {
  service = await startTestService();
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await service.stop();
  await tracing.shutdown();
});

describe('tracing', () => {
  test('POST /v2/payouts is a server span whose SQL statements are its child spans', async () => {
    const accessToken = await token(service.url, { scope: 'payouts' });
    spans.reset();
    // the caller's own trace (this process's fetch is instrumented too, and sends its traceparent)
    const { traceId, status } = await trace.getTracer('test').startActiveSpan('caller', async (span) => {
      const created = await fetch(`${service.url}/v2/payouts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(payoutBody('MX_SPEI')),
      });
      span.end();
      return { traceId: span.spanContext().traceId, status: created.status };
    });
    assert.equal(status, 201);
    const finished = await eventually(
      async () => spans.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId),
      (list) => list.some((span) => span.kind === SpanKind.SERVER),
    );
    const server = finished.find((span) => span.kind === SpanKind.SERVER)!;
    const client = finished.find((span) => span.kind === SpanKind.CLIENT && span.attributes['http.request.method'] === 'POST');
    assert.equal(server.parentSpanContext?.spanId, client?.spanContext().spanId, 'the caller\'s traceparent is continued');
    const sql = finished.filter((span) => span.attributes['db.system.name'] === 'postgresql' || span.attributes['db.system'] === 'postgresql');
    assert.ok(sql.length >= 1, `SQL spans in the request's trace (got ${finished.map((span) => span.name).join(', ')})`);
    const ids = new Set(finished.map((span) => span.spanContext().spanId));
    for (const span of sql) assert.ok(ids.has(span.parentSpanContext!.spanId), 'each SQL span hangs under the request');
  });

  test('a webhook delivery carries a traceparent of the trace it was sent in', async () => {
    const sender = createSender({ mode: 'sandbox', timeoutMs: 5000, connectionsPerEndpointMax: 1 });
    const tracer = trace.getTracer('test');
    const traceId = await tracer.startActiveSpan('deliver', async (span) => {
      const result = await sender.send({ webhookEndpointId: 'we-1', url: receiver.url }, { 'content-type': 'application/json' }, '{}');
      assert.equal(result.status, 200);
      span.end();
      return span.spanContext().traceId;
    });
    await sender.close();
    const header = receiver.received.at(-1)?.headers['traceparent'];
    assert.match(header ?? '', new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  });

  test('a partner call carries a traceparent of the trace it was made in', async () => {
    const dispatcher = new Agent();
    const rail = createHttpRail({ baseUrl: new URL(receiver.url).origin, signingKey: newKey(), dispatcher, attemptsMax: 1 });
    receiver.answer = () => ({ status: 404 });
    const payout: PayoutForRail = {
      payoutId: '0b8f8a4e-6f1d-4c1a-9d43-2a7c5e9b1f20', payoutProviderId: 'MX_SPEI', payoutMethod: 'BANK_ACCOUNT', destinationMemberId: 'PARTNER_MX',
      destinationCcy: 'MXN', payoutAmt: '10.00', sender: {}, beneficiary: {},
    };
    const traceId = await trace.getTracer('test').startActiveSpan('ask partner', async (span) => {
      await rail.status(payout, AbortSignal.timeout(5000)).catch(() => undefined); // the answer does not matter here
      span.end();
      return span.spanContext().traceId;
    });
    await dispatcher.close();
    const call = receiver.received.at(-1);
    assert.match(call?.path ?? '', /0b8f8a4e-6f1d-4c1a-9d43-2a7c5e9b1f20/);
    assert.match(call?.headers['traceparent'] ?? '', new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  });

  test('a price feed call carries a traceparent of the trace it was made in', async () => {
    const source = createHttpRateSource({ baseUrl: receiver.url, timeoutMs: 2000, maxAgeMs: 60_000, spreadBps: 0, intervalBufferBps: 0, cacheMs: 0 });
    receiver.answer = () => ({ status: 404 });
    const traceId = await trace.getTracer('test').startActiveSpan('lock a rate', async (span) => {
      await source.quote('USD', 'MXN', new Date()); // the answer does not matter here
      span.end();
      return span.spanContext().traceId;
    });
    await source.close();
    const call = receiver.received.at(-1);
    assert.match(call?.path ?? '', /\/rates\?base=USD&quote=MXN$/);
    assert.match(call?.headers['traceparent'] ?? '', new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  });
});
