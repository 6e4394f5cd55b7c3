// `npm run test:vscode`: bundles the @vscode/test-electron suite (test/vscode)
// with esbuild and runs it. Needs desktop VS Code, which test-electron
// downloads; where it cannot (no internet), the runner exits 2 with a message.
// Kept out of `npm test`; `tsc -b` type-checks the suite so it always compiles.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';

const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], sourcemap: true, logLevel: 'warning' };
await build({ ...common, entryPoints: ['test/vscode/runTest.ts'], outfile: 'out/test-vscode/runTest.js' });
await build({ ...common, entryPoints: ['test/vscode/suite/index.ts'], outfile: 'out/test-vscode/suite.js' });
const r = spawnSync(process.execPath, ['out/test-vscode/runTest.js'], { stdio: 'inherit' });
process.exit(r.status ?? 1);
