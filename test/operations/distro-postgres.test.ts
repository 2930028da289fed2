// Which distribution PostgreSQL `npm test` uses for its second server version: the newest one
// installed, never one older than the service supports, and never a silent skip when there is none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { distroBinaries } from '../../scripts/distro-postgres.ts';
import { tempDataDir } from '../support/service.ts';

async function fakeServers(versions: string[]): Promise<string> {
  const root = await tempDataDir();
  for (const version of versions) {
    await fs.mkdir(path.join(root, version, 'bin'), { recursive: true });
    await fs.writeFile(path.join(root, version, 'bin', 'postgres'), '');
  }
  return root;
}

test('the newest installed server is taken, with its own initdb and pg_ctl', async () => {
  const root = await fakeServers(['15', '16']);
  await fs.mkdir(path.join(root, '17', 'bin'), { recursive: true }); // client tools only: no server
  const found = distroBinaries({ root, asRoot: false });
  assert.deepEqual(found, { version: 16, initdb: path.join(root, '16', 'bin', 'initdb'), pg_ctl: path.join(root, '16', 'bin', 'pg_ctl') });
});

test('no server and not root: refused with the command that installs it', async () => {
  const root = await fakeServers([]);
  assert.throws(() => distroBinaries({ root, asRoot: false }), (error: Error) => {
    assert.match(error.message, /no PostgreSQL server under .*\/\*\/bin\/postgres/);
    assert.match(error.message, /apt-get update && apt-get install -y postgresql/);
    return true;
  });
});

test('a server older than 14 is refused', async () => {
  const root = await fakeServers(['13']);
  assert.throws(() => distroBinaries({ root, asRoot: false }), /PostgreSQL 13 is older than the 14 the service supports/);
});
