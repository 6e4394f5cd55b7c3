// Repository invariants for rules (typescript-eslint's docs tests, ruff's
// test_contents): every rule registered once with a unique code and a
// kebab-case name matching its file, documented in fixed sections, its
// generated docs page up to date, its Example firing and its Use instead quiet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { RULES } from '../../server/src/rules';
import { parseRuleDoc } from '../../server/src/rules/docs';

const root = join(__dirname, '..', '..');

test('codes and names are unique and match their files', () => {
  assert.equal(new Set(RULES.map((r) => r.code)).size, RULES.length);
  assert.equal(new Set(RULES.map((r) => r.name)).size, RULES.length);
  const files = readdirSync(join(root, 'server/src/rules')).filter((f) => /^[a-z0-9-]+\.ts$/.test(f) && !['index.ts', 'types.ts', 'util.ts', 'docs.ts'].includes(f));
  for (const f of files) assert.ok(RULES.some((r) => `${r.name}.ts` === f), `${f} is not registered`);
  for (const r of RULES) {
    assert.match(r.code, /^OOM\d{3}$/);
    assert.match(r.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
  }
});

for (const r of RULES) {
  test(`${r.code} ${r.name} is documented, and its Example fires while Use instead stays quiet`, async () => {
    const src = readFileSync(join(root, 'server/src/rules', `${r.name}.ts`), 'utf8');
    const doc = parseRuleDoc(src);
    for (const s of ['## What it does', '## Why is this bad?', '## Example', '## Use instead', '## Fix safety', '## References']) assert.ok(doc.markdown.includes(s), `missing section ${s}`);
    const page = join(root, 'docs/rules', `${r.name}.md`);
    assert.ok(existsSync(page), `${page} missing: run npm run gen-docs`);
    assert.ok(readFileSync(page, 'utf8').includes(doc.markdown), `${page} is out of date: run npm run gen-docs`);
    const device = r.code === 'OOM902' ? 't4' : r.code === 'OOM103' ? '8xh100-80gb' : 'a100-40gb';
    const versions: Record<string, string> = { jax: '0.4.30', transformers: '4.36.2' };
    const ex = await analyze(doc.example!, { device, versions });
    assert.ok(ex.findings.some((f) => f.code === r.code), `Example does not fire ${r.code}: ${JSON.stringify(ex.findings.map((f) => f.code))} ${JSON.stringify(ex.unknowns)}`);
    const ok = await analyze(doc.useInstead!, { device, versions });
    assert.ok(!ok.findings.some((f) => f.code === r.code), `Use instead fires ${r.code}`);
  });
}
