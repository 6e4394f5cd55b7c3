// Unknown is never zero (issue #11): over every Python program in the test
// suite (examples, seed scenarios, rule fixtures and fixes, the corpus, the
// transformers fixtures), no phase says it fits while a contributor of that
// phase is unknown, a phase with nothing known has no peak (never "0 B"),
// a partly known peak is flagged as a lower bound, and no "fits on" list is
// offered for a phase whose verdict is unknown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { readProjectConfig } from '../../server/src/config/pyproject';
import { adviseModel } from '../../shared/src/advice';
import { fixtureOptions } from '../rules/harness';

const root = join(__dirname, '..', '..');
const DIRS = ['examples', 'test/fixtures', 'test/rules/fixtures', 'test/rules/fixes', 'test/corpus'];

function pythonFiles(dir: string, out: string[] = []): string[] {
  let names: string[];
  try { names = readdirSync(dir); } catch { return out; }
  for (const n of names.sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) pythonFiles(p, out);
    else if (n.endsWith('.py')) out.push(p);
  }
  return out;
}

test('no phase fits with an unknown contributor; no 0 B peak; no fits-on list for an unknown verdict', async () => {
  const files = DIRS.flatMap((d) => pythonFiles(join(root, d)));
  assert.ok(files.length > 50, `only ${files.length} programs found`);
  let phases = 0;
  let unknownPhases = 0;
  for (const path of files) {
    const text = readFileSync(path, 'utf8');
    const fx = fixtureOptions(text);
    const device = readProjectConfig(path).device ?? fx.device;
    const r = await analyze(text, { path, device, versions: Object.keys(fx.versions).length ? fx.versions : undefined });
    const where = relative(root, path);
    for (const m of r.models) {
      const advice = adviseModel(m.facts, m.estimate);
      m.estimate.phases.forEach((p, i) => {
        phases++;
        const unknownParams = m.facts.paramCount === null;
        if (p.unknowns.length || unknownParams) unknownPhases++;
        assert.ok(!(p.fits === true && (p.unknowns.length > 0 || unknownParams)), `${where} ${m.facts.name} ${p.phase}: fits=true with unknowns ${JSON.stringify(p.unknowns)}`);
        assert.equal(p.peakIsLowerBound, p.unknowns.length > 0, `${where} ${m.facts.name} ${p.phase}: lower-bound flag`);
        if (p.peakIsLowerBound) assert.notEqual(p.peakBytes, 0, `${where} ${m.facts.name} ${p.phase}: an unknown phase reads 0 B`);
        if (p.fits === null) assert.deepEqual(advice[i].fitsOn, [], `${where} ${m.facts.name} ${p.phase}: fits-on list with an unknown verdict`);
      });
    }
    for (const f of r.findings) assert.doesNotMatch(f.message, /\(0 B\)|\b0 B\b/, `${where}: ${f.code} prints 0 B: ${f.message}`);
  }
  assert.ok(phases > 50, `only ${phases} phases analysed`);
  assert.ok(unknownPhases > 0, 'no phase with an unknown contributor was exercised');
});
