// Compiles contracts/*.sol with solc (the npm build, no download) and writes each contract's ABI
// and bytecode to contracts/<Name>.json, the artifact the local test chain deploys. The artifacts
// are committed: run this after changing a .sol file (`node scripts/build-contracts.ts`).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const solc = require('solc') as { version(): string; compile(input: string, options: { import(p: string): { contents: string } | { error: string } }): string };

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONTRACTS_DIR = path.join(ROOT, 'contracts');
// Pinned so the bytecode does not depend on the compiler's default target.
const EVM_VERSION = 'cancun';

function findImport(importPath: string): { contents: string } | { error: string } {
  try {
    return { contents: fs.readFileSync(require.resolve(importPath), 'utf8') };
  } catch {
    return { error: `not found: ${importPath}` };
  }
}

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

const sources: Record<string, { content: string }> = {};
for (const file of fs.readdirSync(CONTRACTS_DIR).filter((f) => f.endsWith('.sol'))) {
  sources[file] = { content: fs.readFileSync(path.join(CONTRACTS_DIR, file), 'utf8') };
}
const input = {
  language: 'Solidity',
  sources,
  settings: { evmVersion: EVM_VERSION, optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
};
const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as SolcOutput;
const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
if (errors.length > 0) {
  for (const error of errors) console.error(error.formattedMessage);
  process.exit(1);
}
for (const file of Object.keys(sources)) {
  for (const [name, contract] of Object.entries(output.contracts[file] ?? {})) {
    const artifact = { contractName: name, compiler: `solc ${solc.version()}`, evmVersion: EVM_VERSION, abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
    fs.writeFileSync(path.join(CONTRACTS_DIR, `${name}.json`), `${JSON.stringify(artifact, null, 2)}\n`);
    console.log(`contracts/${name}.json`);
  }
}
