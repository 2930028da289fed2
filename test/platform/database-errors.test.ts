// Which database errors mean "unreachable right now" (answered 503 SERVICE_UNAVAILABLE with
// Retry-After, and survived when unhandled) and which are bugs or refused statements (500).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDatabaseUnavailable } from '../../src/platform/database/pool.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

test('lost connections, a server going away or starting, and a closed database are unavailable', () => {
  for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'EPIPE', '57P01', '57P02', '57P03', '08006', '08001']) {
    assert.equal(isDatabaseUnavailable(withCode(code)), true, code);
  }
  assert.equal(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')), true);
  assert.equal(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect')), true);
  assert.equal(isDatabaseUnavailable(withCode('55000', 'database "service" is not currently accepting connections')), true);
  assert.equal(isDatabaseUnavailable(new Error('wrapped', { cause: withCode('ECONNREFUSED') })), true);
  assert.equal(isDatabaseUnavailable(new AggregateError([new Error('a'), withCode('57P01')])), true);
  // the embedded cluster's unix socket while its postmaster is down or restarting
  assert.equal(isDatabaseUnavailable(Object.assign(withCode('ENOENT', 'connect ENOENT /data/postgres/.s.PGSQL.5432'), { syscall: 'connect' })), true);
});

test('refused statements, conflicts and plain bugs are not', () => {
  for (const code of ['23505', '40001', '40P01', '42P01', '22P02', '57014']) {
    assert.equal(isDatabaseUnavailable(withCode(code)), false, code);
  }
  assert.equal(isDatabaseUnavailable(withCode('55000', 'object is in use')), false);
  assert.equal(isDatabaseUnavailable(new TypeError('cannot read properties of undefined')), false);
  assert.equal(isDatabaseUnavailable('ECONNREFUSED'), false);
  assert.equal(isDatabaseUnavailable(Object.assign(withCode('ENOENT', 'no such file'), { syscall: 'open' })), false, 'a missing file is not an outage');
  assert.equal(isDatabaseUnavailable(undefined), false);
});
