// The client as another project gets it. Its sources type-check on their own (TypeScript 5, the
// DOM library instead of Node's types, stricter options than this repository's). Packed with
// `npm pack` (which builds dist/) and installed from the tarball into a scratch project, it runs
// against the real service from an ES module and from CommonJS, under the machine's own Node (20)
// and this repository's (24), and its declarations type-check an application's ESM and CJS code.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startTestService, type TestService } from '../support/service.ts';
import { packAndInstall, systemNode, type InstalledClient } from '../support/package.ts';
import { DEMO } from '../support/http.ts';
import { newPayout } from '../support/client.ts';

// the typescript the client package resolves (its devDependency), wherever npm placed it
const TSC = createRequire(path.join(ROOT, 'client/package.json')).resolve('typescript/bin/tsc');
const FIXTURES = path.join(ROOT, 'test/client/fixtures/consumer');
const NODE_24 = path.join(ROOT, 'node_modules/.bin/node');
const RUN_TIMEOUT_MS = 60_000;

let service: TestService;
let installed: InstalledClient;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
  installed = packAndInstall();
  for (const file of fs.readdirSync(FIXTURES)) fs.copyFileSync(path.join(FIXTURES, file), path.join(installed.dir, file));
});
after(async () => {
  await service.stop();
  installed?.remove();
});

function tsc(config: Record<string, unknown>, dir: string) {
  const file = path.join(dir, 'tsconfig.json');
  fs.writeFileSync(file, JSON.stringify(config));
  return spawnSync(process.execPath, [TSC, '-p', file], { encoding: 'utf8' });
}

test('client/src type-checks with TypeScript 5, lib dom, no @types/node and exactOptionalPropertyTypes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tsc-'));
  try {
    const version = spawnSync(process.execPath, [TSC, '--version'], { encoding: 'utf8' });
    assert.match(version.stdout, /^Version 5\./);
    const run = tsc({
      compilerOptions: {
        target: 'es2022', lib: ['es2022', 'dom', 'dom.iterable'], module: 'nodenext', moduleResolution: 'nodenext',
        types: [], typeRoots: [], strict: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true,
        noImplicitOverride: true, noEmit: true, allowImportingTsExtensions: true, verbatimModuleSyntax: true,
        erasableSyntaxOnly: true, skipLibCheck: true,
      },
      files: [path.join(ROOT, 'client/src/index.ts')],
    }, dir);
    assert.equal(run.status, 0, run.stdout + run.stderr);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the tarball holds the build, its declarations, the README and the CHANGELOG, and no sources', () => {
  const files = installed.packedFiles;
  for (const file of ['package.json', 'README.md', 'CHANGELOG.md', 'dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/esm/schema.d.ts',
    'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/schema.d.ts', 'dist/cjs/package.json']) {
    assert.ok(files.includes(file), `${file} is packed`);
  }
  assert.deepEqual(files.filter((f) => !/^(dist\/|package\.json$|README\.md$|CHANGELOG\.md$)/.test(f)), []);
  const manifest = JSON.parse(fs.readFileSync(path.join(installed.dir, 'node_modules/@settlement-payout/client/package.json'), 'utf8'));
  assert.equal(manifest.sideEffects, false);
  assert.equal(manifest.engines.node, '>=20');
});

/** Runs a fixture script of the scratch project with `node`; answers what it printed, parsed. */
async function runConsumer(node: string, script: string): Promise<Record<string, unknown>> {
  const child = spawn(node, [script], {
    cwd: installed.dir,
    env: { PATH: process.env['PATH'], BASE_URL: service.url, CLIENT_ID: DEMO.clientId, CLIENT_SECRET: DEMO.secret, PAYOUT: JSON.stringify(newPayout()) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  assert.equal(code, 0, output);
  return JSON.parse(output.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

function assertFlow(result: Record<string, unknown>, format: string, nodeMajor: string) {
  assert.equal(result['format'], format);
  assert.match(String(result['node']), new RegExp(`^v${nodeMajor}\\.`));
  assert.deepEqual(result['replayed'], [false, true], 'the second identical creation is a replay');
  assert.equal(result['samePayout'], true);
  assert.equal(result['processed'], 'PRCD');
  assert.equal(result['record'], 'PRCD');
  assert.deepEqual(result['listed'], [result['payoutId']]);
  assert.equal(result['missing'], '404 NOT_FOUND');
  assert.equal(result['verify'], 'function');
}

const system = systemNode();
const runtimes = [
  { name: 'Node 24 (this repository\'s)', node: NODE_24, major: '24' },
  ...(system ? [{ name: `the machine's own Node (${system.version})`, node: system.path, major: system.version.slice(1).split('.')[0]! }] : []),
];

for (const runtime of runtimes) {
  test(`installed from the tarball, it runs a payout against the service as an ES module under ${runtime.name}`, async () => {
    assertFlow(await runConsumer(runtime.node, 'esm.mjs'), 'esm', runtime.major);
  });
  test(`installed from the tarball, it runs a payout against the service as CommonJS under ${runtime.name}`, async () => {
    assertFlow(await runConsumer(runtime.node, 'cjs.cjs'), 'cjs', runtime.major);
  });
}

test('the machine has a Node 20 to run the package under', () => {
  assert.ok(system, 'a node outside node_modules on PATH');
  assert.match(system.version, /^v20\./);
});

test("the installed declarations type-check an application's ES module and CommonJS code (TypeScript 5, module nodenext)", () => {
  const run = tsc({
    compilerOptions: {
      target: 'es2022', lib: ['es2022', 'dom', 'dom.iterable'], module: 'nodenext', moduleResolution: 'nodenext',
      // a Node application has Node's types (standardwebhooks' declarations name Buffer)
      typeRoots: [path.join(ROOT, 'node_modules/@types')], types: ['node'],
      strict: true, noEmit: true, skipLibCheck: false, exactOptionalPropertyTypes: true,
    },
    files: ['typed.mts', 'typed.cts'],
  }, installed.dir);
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
