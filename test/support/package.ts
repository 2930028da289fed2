// Test support for the published client: `npm pack` of client/ (its prepack builds dist/), the
// tarball installed into a scratch project in a temporary directory as an application would, with
// its runtime dependencies from the npm cache (a lockfile pins them by integrity: no network).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './service.ts';

const CLIENT_DIR = path.join(ROOT, 'client');
const NPM_TIMEOUT_MS = 180_000;

export interface InstalledClient {
  /** The scratch project; node_modules/@settlement-payout/client is the installed tarball. */
  dir: string;
  /** The paths inside the tarball, as npm pack listed them. */
  packedFiles: string[];
  remove(): void;
}

interface LockEntry {
  version: string;
  integrity?: string;
  license?: string;
  dependencies?: Record<string, string>;
}

/** Packs client/ and installs the tarball, offline, into a new scratch project. */
export function packAndInstall(): InstalledClient {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-package-'));
  const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: CLIENT_DIR, encoding: 'utf8', timeout: NPM_TIMEOUT_MS });
  // the prepack build prints to the same output, before npm's JSON
  const listing = JSON.parse(packed.slice(packed.lastIndexOf('\n[\n') + 1)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const tarball = listing[0]!.filename.replace(/^@/, '').replace('/', '-');
  const app = path.join(dir, 'app');
  fs.mkdirSync(app);
  const manifest = JSON.parse(fs.readFileSync(path.join(CLIENT_DIR, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
  const spec = `file:../${tarball}`;
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'scratch-app', private: true, dependencies: { '@settlement-payout/client': spec } }, null, 2));
  fs.writeFileSync(path.join(app, 'package-lock.json'), JSON.stringify(lockfile(spec, manifest), null, 2));
  execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: app, encoding: 'utf8', timeout: NPM_TIMEOUT_MS, stdio: 'pipe' });
  return { dir: app, packedFiles: listing[0]!.files.map((f) => f.path), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A lockfile for the scratch project: the tarball, and its runtime dependencies at the versions and
 * integrities the repository's lockfile holds (so `npm ci --offline` takes them from the npm cache).
 */
function lockfile(spec: string, manifest: { version: string; dependencies: Record<string, string> }) {
  const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const packages: Record<string, unknown> = {
    '': { name: 'scratch-app', dependencies: { '@settlement-payout/client': spec } },
    'node_modules/@settlement-payout/client': { version: manifest.version, resolved: spec, dependencies: manifest.dependencies },
  };
  const pending = Object.keys(manifest.dependencies);
  while (pending.length > 0) {
    const name = pending.pop()!;
    const key = `node_modules/${name}`;
    if (packages[key]) continue;
    const entry = root.packages[`client/${key}`] ?? root.packages[key];
    if (!entry) throw new Error(`${name} is not in the repository's package-lock.json`);
    packages[key] = entry;
    pending.push(...Object.keys(entry.dependencies ?? {}));
  }
  return { name: 'scratch-app', lockfileVersion: 3, requires: true, packages };
}

/** A `node` on PATH outside any node_modules (the machine's own), with its version, or undefined. */
export function systemNode(): { path: string; version: string } | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    if (dir === '' || dir.includes('node_modules')) continue;
    const candidate = path.join(dir, 'node');
    if (!fs.existsSync(candidate)) continue;
    const run = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    if (run.status === 0) return { path: candidate, version: run.stdout.trim() };
  }
  return undefined;
}
