// Regenerates src/schema.d.ts from the real service: starts it in this process (embedded
// PostgreSQL in a temporary data directory, a free port), fetches /openapi.json, runs
// openapi-typescript on it and writes the result. Run from the repository root with
// `npm run client:generate` (or `npm run generate -w @settlement-payout/client`).
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { startTestService } from '../../test/support/service.ts';
import { generateTypes, SCHEMA_FILE } from './generate-types.ts';

const service = await startTestService({ WORKERS: '0' });
try {
  const response = await fetch(`${service.url}/openapi.json`);
  if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
  const types = await generateTypes(await response.json());
  await fs.writeFile(SCHEMA_FILE, types);
  console.log(`wrote ${fileURLToPath(SCHEMA_FILE)} (${types.length} characters)`);
} finally {
  await service.stop();
  await fs.rm(service.dataDir, { recursive: true, force: true });
}
