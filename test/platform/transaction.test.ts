// The transaction helper against the real PostgreSQL: a transaction that PostgreSQL ends as a
// deadlock victim, or for a serialization failure, is run again whole and returns its result; one
// that keeps losing ends, after its bound, in DatabaseBusyError, which the HTTP layer answers 503
// SERVICE_UNAVAILABLE with Retry-After. Other failures are not retried.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { startTestService, type TestService } from '../support/service.ts';
import { DatabaseBusyError, withTransaction, type RetryPolicy } from '../../src/platform/database/transaction.ts';
import type { DbClient } from '../../src/platform/database/pool.ts';
import { registerHttpPlatform } from '../../src/platform/http/plugins.ts';

let service: TestService;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  await service.db.query('CREATE TABLE retry_probe (id int PRIMARY KEY, n int NOT NULL)');
  await service.db.query('INSERT INTO retry_probe (id, n) SELECT g, 0 FROM generate_series(1, 6) AS g');
});
after(async () => {
  await service.stop();
});

const FAST: RetryPolicy = { attemptsMax: 3, backoffBaseMs: 1, backoffMaxMs: 5 };

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const probe = async (id: number) => (await service.db.query<{ n: number }>('SELECT n FROM retry_probe WHERE id = $1', [id])).rows[0]!.n;

/** Holds a row lock on another connection until released. */
async function holdRow(id: number) {
  const client = await service.db.connect();
  await client.query('BEGIN');
  await client.query('SELECT n FROM retry_probe WHERE id = $1 FOR UPDATE', [id]);
  return async () => {
    await client.query('ROLLBACK');
    client.release();
  };
}

/** Work that always waits 20 ms for a row another connection holds, then gives up (55P03). */
const lockedOut = (id: number, attempts: { n: number }) => async (client: DbClient) => {
  attempts.n++;
  await client.query(`SET LOCAL lock_timeout = '20ms'`);
  await client.query('SELECT n FROM retry_probe WHERE id = $1 FOR UPDATE', [id]);
  return 'unreachable';
};

describe('withTransaction retries', () => {
  test('a real deadlock: the victim is run again whole and both transactions return their results', async () => {
    const attempts = { a: 0, b: 0 };
    const aLocked = deferred();
    const bLocked = deferred();
    // a locks row 1 then row 2, b locks row 2 then row 1; each waits for the other's first lock
    const crosswise = (first: number, second: number, name: 'a' | 'b', mine: ReturnType<typeof deferred>, theirs: Promise<void>) =>
      async (client: DbClient) => {
        attempts[name]++;
        await client.query('UPDATE retry_probe SET n = n + 1 WHERE id = $1', [first]);
        if (attempts[name] === 1) {
          mine.resolve();
          await theirs;
        }
        await client.query('UPDATE retry_probe SET n = n + 1 WHERE id = $1', [second]);
        return `${name}: ${first} then ${second}`;
      };
    const results = await Promise.all([
      withTransaction(service.db, crosswise(1, 2, 'a', aLocked, bLocked.promise), FAST),
      withTransaction(service.db, crosswise(2, 1, 'b', bLocked, aLocked.promise), FAST),
    ]);
    assert.deepEqual(results, ['a: 1 then 2', 'b: 2 then 1']);
    assert.equal(attempts.a + attempts.b, 3, 'one of the two was the deadlock victim and ran once more');
    // each transaction's two increments landed exactly once: the victim's first attempt left nothing
    assert.deepEqual([await probe(1), await probe(2)], [2, 2]);
  });

  test('a real serialization failure: the transaction is run again and returns its result', async () => {
    let attempts = 0;
    const result = await withTransaction(service.db, async (client) => {
      attempts++;
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      const seen = (await client.query<{ n: number }>('SELECT n FROM retry_probe WHERE id = 3')).rows[0]!.n;
      if (attempts === 1) await service.db.query('UPDATE retry_probe SET n = n + 10 WHERE id = 3'); // another writer commits meanwhile
      await client.query('UPDATE retry_probe SET n = n + 1 WHERE id = 3'); // 40001 on the first attempt
      return seen;
    }, FAST);
    assert.equal(attempts, 2);
    assert.equal(result, 10, 'the second attempt saw the other writer');
    assert.equal(await probe(3), 11);
  });

  test('still losing after its bound: DatabaseBusyError, having tried exactly attemptsMax times', async () => {
    const release = await holdRow(4);
    const attempts = { n: 0 };
    try {
      await assert.rejects(withTransaction(service.db, lockedOut(4, attempts), FAST), (error: unknown) => {
        assert.ok(error instanceof DatabaseBusyError);
        assert.equal(error.attempts, 3);
        assert.equal(error.sqlState, '55P03');
        return true;
      });
      assert.equal(attempts.n, 3);
    } finally {
      await release();
    }
  });

  test('other failures are thrown at once, not retried', async () => {
    let attempts = 0;
    await assert.rejects(withTransaction(service.db, async (client) => {
      attempts++;
      await client.query('INSERT INTO retry_probe (id, n) VALUES (5, 0)'); // 23505: 5 exists
    }, FAST), (error: unknown) => (error as { code?: string }).code === '23505');
    assert.equal(attempts, 1);
  });

  test('DatabaseBusyError on the wire: 503 SERVICE_UNAVAILABLE with Retry-After and the contract Error body', async () => {
    const app = Fastify();
    await registerHttpPlatform(app, { rateLimitPerMinute: 1000, clientKey: () => undefined });
    const attempts = { n: 0 };
    app.post('/busy', async () => withTransaction(service.db, lockedOut(6, attempts), FAST));
    const release = await holdRow(6);
    try {
      const response = await app.inject({ method: 'POST', url: '/busy' });
      assert.equal(response.statusCode, 503);
      assert.equal(response.headers['retry-after'], '1');
      const body = response.json<Record<string, unknown>>();
      assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'message']);
      assert.equal(body['code'], 'SERVICE_UNAVAILABLE');
      assert.equal(attempts.n, 3);
    } finally {
      await release();
      await app.close();
    }
  });
});
