// The client package type-checks on its own, as another project would see it: TypeScript 5 (the
// client's own devDependency, not the repository's), the DOM library instead of Node's types, and
// stricter options than this repository uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../support/service.ts';

test('client/src type-checks with TypeScript 5, lib dom, no @types/node and exactOptionalPropertyTypes', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'client-tsc-'));
  try {
    const config = path.join(dir, 'tsconfig.json');
    await fs.writeFile(config, JSON.stringify({
      compilerOptions: {
        target: 'es2022', lib: ['es2022', 'dom', 'dom.iterable'], module: 'nodenext', moduleResolution: 'nodenext',
        types: [], typeRoots: [], strict: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true,
        noImplicitOverride: true, noEmit: true, allowImportingTsExtensions: true, verbatimModuleSyntax: true,
        erasableSyntaxOnly: true, skipLibCheck: true,
      },
      files: [path.join(ROOT, 'client/src/index.ts')],
    }));
    // the typescript the client package resolves (its devDependency), wherever npm placed it
    const tsc = createRequire(path.join(ROOT, 'client/package.json')).resolve('typescript/bin/tsc');
    const version = spawnSync(process.execPath, [tsc, '--version'], { encoding: 'utf8' });
    assert.match(version.stdout, /^Version 5\./);
    const run = spawnSync(process.execPath, [tsc, '-p', config], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stdout + run.stderr);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
