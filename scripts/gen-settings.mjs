// Generates package.json `contributes.configuration` and `contributes.commands`
// (category "oomlens") from the server's settings schema, so the schema is
// declared once (server/src/settings.ts). Run with `npm run gen-settings`;
// `--check` exits 1 when package.json is out of date. Runs under tsx, which
// lets this .mjs import the TypeScript schema directly.
import { readFileSync, writeFileSync } from 'node:fs';
import { contributes } from '../server/src/settings.ts';

const pkgPath = new URL('../package.json', import.meta.url);
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
const gen = contributes();
const next = { ...pkg, contributes: { ...pkg.contributes, configuration: gen.configuration, commands: gen.commands } };
const before = JSON.stringify(pkg.contributes);
const after = JSON.stringify(next.contributes);
if (process.argv.includes('--check')) {
  if (before !== after) {
    console.error('package.json contributes is out of date: run npm run gen-settings');
    process.exit(1);
  }
} else if (before !== after) {
  writeFileSync(pkgPath, JSON.stringify(next, null, 2) + '\n');
  console.log('package.json contributes updated');
}
