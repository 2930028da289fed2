// Test support: the admin CLI run as operators run it (a child process of `node src/admin/cli.ts`),
// pointed at a test service's data directory.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './service.ts';
import { databaseEnvFor } from './database.ts';

const run = promisify(execFile);
const NODE = path.join(ROOT, 'node_modules/.bin/node');

export interface AdminRun { code: number; stdout: string; stderr: string }

export function adminCli(dataDir: () => string) {
  async function admin(args: string[]): Promise<AdminRun> {
    try {
      const env = { ...process.env, ...(await databaseEnvFor(dataDir())), DATA_DIR: dataDir() };
      const { stdout, stderr } = await run(NODE, ['src/admin/cli.ts', ...args], { cwd: ROOT, env });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }
  async function adminJson<T = Record<string, unknown>>(args: string[]): Promise<T> {
    const result = await admin([...args, '--json']);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as T;
  }
  /** Runs a command that must be refused: its exit code and the message on stderr. */
  async function refused(args: string[], code: number, message: RegExp): Promise<void> {
    const result = await admin(args);
    assert.equal(result.code, code, `${args.join(' ')}: exit ${result.code}, stderr ${result.stderr}`);
    assert.match(result.stderr, message);
  }
  return { admin, adminJson, refused };
}
