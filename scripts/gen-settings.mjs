// Generates package.json `contributes.configuration` and `contributes.commands`
// (category "oomlens") and the README's settings table from the server's
// settings schema, so the schema is
// declared once (server/src/config/settings.ts). Run with `npm run gen-settings`;
// `--check` exits 1 when package.json is out of date. Runs under tsx, which
// lets this .mjs import the TypeScript schema directly.
import { readFileSync, writeFileSync } from 'node:fs';
import { README_TABLE_END, README_TABLE_START, contributes, settingsTable } from '../server/src/config/settings.ts';

const pkgPath = new URL('../package.json', import.meta.url);
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
const gen = contributes();
const next = { ...pkg, contributes: { ...pkg.contributes, configuration: gen.configuration, commands: gen.commands } };
const before = JSON.stringify(pkg.contributes);
const after = JSON.stringify(next.contributes);
const readmePath = new URL('../README.md', import.meta.url);
const readme = readFileSync(readmePath, 'utf8');
const a = readme.indexOf(README_TABLE_START);
const b = readme.indexOf(README_TABLE_END);
if (a < 0 || b < a) {
  console.error(`README.md lacks the settings table markers ${README_TABLE_START} ... ${README_TABLE_END}`);
  process.exit(1);
}
const nextReadme = readme.slice(0, a + README_TABLE_START.length) + '\n' + settingsTable() + '\n' + readme.slice(b);
if (process.argv.includes('--check')) {
  if (before !== after || readme !== nextReadme) {
    console.error('package.json contributes or the README settings table is out of date: run npm run gen-settings');
    process.exit(1);
  }
} else {
  if (before !== after) {
    writeFileSync(pkgPath, JSON.stringify(next, null, 2) + '\n');
    console.log('package.json contributes updated');
  }
  if (readme !== nextReadme) {
    writeFileSync(readmePath, nextReadme);
    console.log('README.md settings table updated');
  }
}
