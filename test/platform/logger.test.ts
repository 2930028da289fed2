// Log redaction: credentials and personal data are censored at the top of a logged object and
// one level below it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { LOG_REDACT_PATHS } from '../../src/platform/logger.ts';

test('secrets, names and endpoint URLs are redacted at the first two levels', () => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const log = pino({ redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' } }, sink);
  log.info({ secret: 's1', payout: { beneficiary: { firstName: 'Maria' } }, endpoint: { secret: 's2', clientSecret: 's3', url: 'https://x/?token=t' }, url: 'http://127.0.0.1:8080' }, 'x');
  const entry = JSON.parse(lines[0]!) as Record<string, any>;
  assert.equal(entry['secret'], '[redacted]');
  assert.equal(entry['payout']['beneficiary'], '[redacted]');
  assert.equal(entry['endpoint']['secret'], '[redacted]');
  assert.equal(entry['endpoint']['clientSecret'], '[redacted]');
  assert.equal(entry['endpoint']['url'], '[redacted]');
  assert.equal(entry['url'], 'http://127.0.0.1:8080', "the service's own address stays readable");
  assert.ok(!lines[0]!.includes('Maria') && !lines[0]!.includes('s2'));
});
