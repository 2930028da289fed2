// The sender's connection pools: one per endpoint, so endpoints on the same host and port do not
// queue for each other's connections; bounded in number, and closed when idle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSender } from '../../src/webhooks/sender.ts';
import { startReceiver } from '../support/receiver.ts';

test('a healthy endpoint on the same host and port as a hanging one is answered at once', async (t) => {
  const receiver = await startReceiver('/');
  receiver.answer = (r) => (r.path.startsWith('/slow') ? 'hang' : { status: 204 });
  const sender = createSender({ mode: 'sandbox', timeoutMs: 3000, connectionsPerEndpointMax: 2 });
  try {
    const origin = receiver.url.replace(/\/$/, '');
    // the slow endpoint uses every connection it may have, and more requests queue behind them
    const hanging = Array.from({ length: 4 }, () => sender.send({ webhookEndpointId: 'slow', url: `${origin}/slow` }, {}, '{}'));
    while (receiver.received.filter((r) => r.path === '/slow').length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    const latencies: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const result = await sender.send({ webhookEndpointId: 'healthy', url: `${origin}/healthy` }, {}, '{}');
      assert.equal(result.status, 204);
      latencies.push(result.latencyMs);
    }
    t.diagnostic(`healthy endpoint beside a hanging one on the same origin: max ${Math.max(...latencies)} ms`);
    assert.ok(Math.max(...latencies) < 1000, `the healthy endpoint waited ${Math.max(...latencies)} ms`);
    assert.equal(receiver.received.filter((r) => r.path === '/slow').length, 2, 'the slow endpoint never had more than its 2 connections');
    await receiver.close();
    const results = await Promise.all(hanging);
    assert.ok(results.every((r) => r.status === null), 'the hanging requests failed without an answer');
  } finally {
    await sender.close();
    await receiver.close().catch(() => undefined);
  }
});

test('endpoint pools are bounded in number and closed once idle', async () => {
  const receiver = await startReceiver();
  const sender = createSender({ mode: 'sandbox', timeoutMs: 2000, connectionsPerEndpointMax: 1, agentsMax: 3, agentIdleMs: 1000 });
  try {
    for (let i = 0; i < 6; i += 1) {
      assert.equal((await sender.send({ webhookEndpointId: `e${i}`, url: receiver.url }, {}, '{}')).status, 200);
      assert.ok(sender.agentsOpen() <= 3, `${sender.agentsOpen()} pools open`);
    }
    assert.equal(sender.agentsOpen(), 3);
    const deadline = Date.now() + 5000;
    while (sender.agentsOpen() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(sender.agentsOpen(), 0, 'idle pools are closed');
    // a closed pool is made again on the next delivery
    assert.equal((await sender.send({ webhookEndpointId: 'e0', url: receiver.url }, {}, '{}')).status, 200);
  } finally {
    await sender.close();
    await receiver.close();
  }
});
