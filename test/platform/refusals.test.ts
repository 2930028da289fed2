// The one failure convention (platform/result.ts): a refusal becomes the contract's Error answer
// through its domain's table, and routes take their types from their schemas, not from casts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ok, refuse } from '../../src/platform/result.ts';
import { refusalError, type RefusalTable } from '../../src/platform/http/refusals.ts';
import { ERROR_STATUS } from '../../src/platform/http/errors.ts';
import { CLIENT_REFUSALS } from '../../src/auth/errors.ts';
import { EVENTS_REFUSALS } from '../../src/events/errors.ts';
import { PARTNER_REFUSALS } from '../../src/partners/errors.ts';
import { PAYOUT_REFUSALS } from '../../src/payouts/errors.ts';
import { PROVIDER_REFUSALS } from '../../src/providers/errors.ts';
import { PREFUND_REFUSALS } from '../../src/sandbox/errors.ts';
import { SETTLEMENT_REFUSALS } from '../../src/settlements/errors.ts';
import { ENDPOINT_REFUSALS } from '../../src/webhooks/errors.ts';

const TABLES: Record<string, RefusalTable<string>> = {
  auth: CLIENT_REFUSALS, events: EVENTS_REFUSALS, partners: PARTNER_REFUSALS, payouts: PAYOUT_REFUSALS,
  providers: PROVIDER_REFUSALS, sandbox: PREFUND_REFUSALS, settlements: SETTLEMENT_REFUSALS, webhooks: ENDPOINT_REFUSALS,
};

const table = {
  GONE: { code: 'NOT_FOUND', message: 'No such thing.' },
  STUCK: { code: 'INVALID_STATE', message: 'Not now.', detail: 'state: fixed detail' },
  BUSY: { code: 'RATE_LIMITED', message: 'Too many.' },
} as const satisfies RefusalTable<'GONE' | 'STUCK' | 'BUSY'>;

describe('refusalError', () => {
  test('the table gives the code (hence the status) and the message; the refusal gives the detail', () => {
    const error = refusalError(table, refuse('GONE', 'thingId: 42'));
    assert.deepEqual([error.statusCode, error.toBody(), error.headers], [404, { code: 'NOT_FOUND', message: 'No such thing.', detail: 'thingId: 42' }, {}]);
  });

  test('a refusal without a detail takes the table\'s fixed one; with one, its own wins', () => {
    assert.equal(refusalError(table, refuse('STUCK')).detail, 'state: fixed detail');
    assert.equal(refusalError(table, refuse('STUCK', 'state: DONE')).detail, 'state: DONE');
    assert.equal(refusalError(table, refuse('GONE')).detail, '');
  });

  test('a refusal that says when to come back answers Retry-After in whole seconds', () => {
    const error = refusalError(table, refuse('BUSY', 'at most 5 a minute', 17));
    assert.deepEqual([error.statusCode, error.headers], [429, { 'retry-after': '17' }]);
  });

  test('ok and refuse build the two shapes of Result', () => {
    assert.deepEqual(ok(7), { ok: true, value: 7 });
    assert.deepEqual(refuse('GONE', 'x'), { ok: false, error: 'GONE', detail: 'x' });
    assert.deepEqual(refuse('BUSY', 'x', 3), { ok: false, error: 'BUSY', detail: 'x', retryAfterSeconds: 3 });
  });
});

describe('the domain tables', () => {
  for (const [domain, refusals] of Object.entries(TABLES)) {
    test(`${domain}: every refusal answers a contract code with a sentence`, () => {
      for (const [refusal, answer] of Object.entries(refusals)) {
        assert.ok(answer.code in ERROR_STATUS, `${domain} ${refusal}: ${answer.code} is a contract code`);
        assert.match(answer.message, /^[A-Z].*\.$/, `${domain} ${refusal}: the message is a sentence`);
      }
    });
  }
});

describe('routes', () => {
  test('no route casts its request: body, query, params and headers are typed by their schemas', async () => {
    const src = new URL('../../src/', import.meta.url).pathname;
    const offenders: string[] = [];
    for (const entry of await readdir(src, { recursive: true })) {
      if (!/routes\.ts$/.test(entry)) continue;
      const text = await readFile(join(src, entry), 'utf8');
      for (const match of text.matchAll(/request\.(body|query|params|headers)\)? as /g)) offenders.push(`${entry}: ${match[0]}`);
    }
    assert.deepEqual(offenders, []);
  });
});
