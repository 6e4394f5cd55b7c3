// Writes docs/rules/<name>.md for every registered rule from the doc comment
// in its source file. `--check` exits 1 if a file on disk is out of date.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES } from '../server/src/rules';
import { parseRuleDoc } from '../server/src/rules/docs';

const check = process.argv.includes('--check');
let stale = 0;
mkdirSync('docs/rules', { recursive: true });
const index: string[] = ['# Rules', '', '| Code | Name | Severity | Fix | Summary |', '| --- | --- | --- | --- | --- |'];
for (const r of RULES) {
  const src = readFileSync(join('server/src/rules', `${r.name}.ts`), 'utf8');
  const doc = parseRuleDoc(src);
  const md = `# ${r.name} (${r.code})\n\nDefault severity: ${r.severity}. Status: ${r.status}. Fix: ${r.fixable}.\n\n${doc.markdown}\n`;
  const file = join('docs/rules', `${r.name}.md`);
  if (check) {
    if (!existsSync(file) || readFileSync(file, 'utf8') !== md) { console.error(`out of date: ${file}`); stale++; }
  } else writeFileSync(file, md);
  index.push(`| ${r.code} | [${r.name}](${r.name}.md) | ${r.severity} | ${r.fixable} | ${r.summary} |`);
}
const indexText = index.join('\n') + '\n';
if (check) {
  if (!existsSync('docs/rules/README.md') || readFileSync('docs/rules/README.md', 'utf8') !== indexText) { console.error('out of date: docs/rules/README.md'); stale++; }
  process.exit(stale ? 1 : 0);
} else writeFileSync('docs/rules/README.md', indexText);
