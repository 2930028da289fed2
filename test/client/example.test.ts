// examples/full-flow.ts, run as a user would (`node examples/full-flow.ts` with BASE_URL) against
// the sandbox started in this process on a free port, finishes its payout and settlement.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT, startTestService, type TestService } from '../support/service.ts';

let service: TestService;
before(async () => {
  service = await startTestService({ WORKERS: '2' });
});
after(async () => {
  await service.stop();
});

test('the full-flow example runs to the end against the sandbox', async () => {
  const child = spawn(path.join(ROOT, 'node_modules/.bin/node'), ['examples/full-flow.ts'], {
    cwd: ROOT,
    env: { ...process.env, BASE_URL: service.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  assert.equal(code, 0, output);
  assert.match(output, new RegExp(`Sandbox: ${service.url}`));
  assert.match(output, /payout \S+ processed: PRCD/);
  assert.match(output, /listed: payout \S+ \(example-[^)]+\) PRCD/);
  assert.match(output, /settlement \S+ created \(Idempotency-Key example-settlement-[^)]+\): S200_RECEIVED/);
  assert.match(output, /settlement \S+ completed: [\d.]+ MXN received/);
  assert.match(output, /listed: settlement \S+ S600_COMPLETED, 1000 USD/);
  assert.match(output, /event \S+ payout\.status_changed: ACCP -> PRCD/);
  assert.match(output, /event \S+ settlement\.status_changed: \S+ -> S600_COMPLETED/);
  assert.match(output, /^done$/m);
});
