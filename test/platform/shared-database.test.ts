// Several service processes on one DATABASE_URL: they boot together, migrate and seed once, and
// honour each other's tokens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { spawnService, tempDataDir } from '../support/service.ts';
import { bearer, token } from '../support/http.ts';
import { startTestDatabase } from '../support/database.ts';
import { readMigrations } from '../../src/platform/database/migrate.ts';

const newKey = () => randomBytes(32).toString('base64');

async function codesStatus(url: string, accessToken: string): Promise<number> {
  return (await fetch(`${url}/v2/purpose-codes`, { headers: bearer(accessToken) })).status;
}

test('two processes booting together on one DATABASE_URL migrate and seed once, and share tokens', async () => {
  const database = await startTestDatabase();
  const keys = { TOKEN_SIGNING_KEY: newKey(), CLIENT_SECRET_KEY: newKey() };
  try {
    const [a, b] = await Promise.all([
      spawnService({ DATABASE_URL: database.url, DATA_DIR: await tempDataDir(), ...keys }),
      spawnService({ DATABASE_URL: database.url, DATA_DIR: await tempDataDir(), ...keys }),
    ]);
    try {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const migrations = await client.query('SELECT version FROM schema_migrations ORDER BY version');
      const members = await client.query('SELECT count(*)::int AS n FROM members');
      const clients = await client.query("SELECT count(*)::int AS n FROM oauth_clients WHERE client_id LIKE 'demo-%'");
      await client.end();
      const expected = (await readMigrations()).map((m) => ({ version: m.version }));
      assert.deepEqual(migrations.rows, expected);
      assert.equal(members.rows[0].n, 9);
      assert.equal(clients.rows[0].n, 2);
      const seededBy = [a, b].filter((s) => /sandbox world seeded/.test(s.output())).length;
      assert.equal(seededBy, 1);
      const fromA = await token(a.url, { scope: 'payouts' });
      assert.equal(await codesStatus(b.url, fromA), 200);
    } finally {
      assert.deepEqual(await Promise.all([a.stop(), b.stop()]), [0, 0]);
    }
  } finally {
    await database.stop();
  }
});
