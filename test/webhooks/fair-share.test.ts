// The member's share of the delivery workers (its default and its bound at boot), and how long a
// delivery put back waits: backing off from a slow member or endpoint, not from a busy one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';
import { deferDelayMs } from '../../src/webhooks/deliver.ts';

test('a member gets a quarter of the delivery workers unless told otherwise, and never all of them', () => {
  assert.equal(loadConfig({}).webhookMemberConcurrency, 8, 'a quarter of the default 32');
  assert.equal(loadConfig({ WEBHOOK_WORKERS: '2' }).webhookMemberConcurrency, 1);
  assert.equal(loadConfig({ WEBHOOK_WORKERS: '1' }).webhookMemberConcurrency, 1, 'one worker: the one member may use it');
  assert.equal(loadConfig({ WEBHOOK_WORKERS: '8', WEBHOOK_MEMBER_CONCURRENCY: '3' }).webhookMemberConcurrency, 3);
  assert.throws(() => loadConfig({ WEBHOOK_WORKERS: '8', WEBHOOK_MEMBER_CONCURRENCY: '8' }), (e: unknown) =>
    e instanceof ConfigError && /WEBHOOK_MEMBER_CONCURRENCY must be less than WEBHOOK_WORKERS/.test(e.message));
  assert.throws(() => loadConfig({ WEBHOOK_CIRCUIT_FAILURES: '0' }), ConfigError);
  assert.throws(() => loadConfig({ WEBHOOK_CIRCUIT_OPEN_MS: '10' }), ConfigError);
});

test('put back from a busy key: 1-2 s each time; from a slow one: doubling up to the receiver timeout', () => {
  const low = () => 0;
  const high = () => 0.999999;
  assert.equal(deferDelayMs('BUSY', 0, 10_000, low), 1000);
  assert.equal(deferDelayMs('BUSY', 9, 10_000, high), 2000, 'a busy key is not backed off from');
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((n) => deferDelayMs('SLOW', n, 10_000, low)), [1000, 2000, 4000, 8000, 10_000, 10_000]);
  assert.equal(deferDelayMs('SLOW', 50, 10_000, high), 20_000, 'at most twice the timeout with jitter');
  assert.equal(deferDelayMs('SLOW', 3, 500, low), 1000, 'never under a second, even with a short timeout');
});
