// The client's committed types (client/src/schema.d.ts) are what openapi-typescript makes of the
// document the service serves now: a change to the API without `npm run client:generate` fails here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { generateTypes, SCHEMA_FILE } from '../../client/scripts/generate-types.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
before(async () => {
  service = await startTestService({ WORKERS: '0' });
});
after(async () => {
  await service.stop();
});

test('client/src/schema.d.ts is up to date with the served /openapi.json', async () => {
  const response = await fetch(`${service.url}/openapi.json`);
  assert.equal(response.status, 200);
  const generated = await generateTypes(await response.json());
  const committed = await fs.readFile(SCHEMA_FILE, 'utf8');
  if (generated !== committed) {
    const a = generated.split('\n');
    const b = committed.split('\n');
    const line = a.findIndex((text, i) => text !== b[i]);
    assert.fail(
      `client/src/schema.d.ts is stale: run \`npm run client:generate\` and commit the result.\n` +
      `first difference at line ${line + 1}:\n  served:    ${a[line]}\n  committed: ${b[line]}`,
    );
  }
});
