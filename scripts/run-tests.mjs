// Runs every *.test.ts under test/ with Node's built-in test runner through tsx.
// Node 20's --test does not expand globs itself, so the files are listed here.
// Pass a substring to run only the files whose path contains it.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const filter = process.argv[2] ?? '';
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'fixtures' || name === 'corpus-data') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts') && p.includes(filter)) files.push(p);
  }
})('test');
files.sort();
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
