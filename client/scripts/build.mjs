// Builds the published package: `tsc` twice (ES modules in dist/esm, CommonJS in dist/cjs), each
// with its declarations. Plain JavaScript, so that it runs under any Node this package supports.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// the TypeScript this package depends on (5.x, with a JavaScript API), wherever npm placed it
const tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');

fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
for (const [config, format] of [['tsconfig.esm.json', 'esm'], ['tsconfig.cjs.json', 'cjs']]) {
  execFileSync(process.execPath, [tsc, '-p', config], { cwd: root, stdio: 'inherit' });
  // tsc emits no copy of a declaration file it was given: the generated types go along by hand
  fs.copyFileSync(path.join(root, 'src/schema.d.ts'), path.join(root, `dist/${format}/schema.d.ts`));
}
// .js files under dist/cjs are CommonJS whatever this package's "type" says
fs.writeFileSync(path.join(root, 'dist/cjs/package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
console.log('built dist/esm and dist/cjs');
