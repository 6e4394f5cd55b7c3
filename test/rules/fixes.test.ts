// Before/after fix pairs (torchfix style): <name>.in.py with a first line
// `# oomlens-test: ... fix=CODE [unsafe]` must become <name>.out.py exactly.
// Invariants on every pair: the result parses, the rule no longer fires, and
// no phase's predicted peak goes up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { parsePython } from '../../server/src/interp/parser';
import { applyFixes, fixtureOptions } from './harness';

const dir = join(__dirname, 'fixes');
for (const file of readdirSync(dir).filter((f) => f.endsWith('.in.py')).sort()) {
  test(`fix ${file}`, async () => {
    const before = readFileSync(join(dir, file), 'utf8');
    const expected = readFileSync(join(dir, file.replace('.in.py', '.out.py')), 'utf8');
    const m = /fix=(OOM\d{3})(\s+unsafe)?/.exec(before);
    assert.ok(m, 'fixture must name the fix under test');
    const code = m[1];
    const opts = fixtureOptions(before);
    const r1 = await analyze(before, { device: opts.device, versions: opts.versions });
    assert.ok(r1.findings.some((f) => f.code === code), `${code} must fire before the fix`);
    const after = applyFixes(before, r1, code, !!m[2]);
    assert.equal(after, expected);
    const tree = await parsePython(after);
    assert.equal(tree.rootNode.hasError, false, 'fixed code must parse');
    const r2 = await analyze(after, { device: opts.device, versions: opts.versions });
    assert.ok(!r2.findings.some((f) => f.code === code), `${code} must not fire after the fix`);
    for (const m1 of r1.models) {
      const m2 = r2.models.find((x) => x.facts.name === m1.facts.name);
      assert.ok(m2, `model ${m1.facts.name} still analysed after the fix`);
      for (const p1 of m1.estimate.phases) {
        const p2 = m2.estimate.phases.find((p) => p.phase === p1.phase);
        if (p1.peakBytes !== null && p2?.peakBytes != null) assert.ok(p2.peakBytes <= p1.peakBytes, `${p1.phase} peak rose from ${p1.peakBytes} to ${p2.peakBytes}`);
      }
    }
  });
}
