// flax.linen.merge_param (flax/linen/module.py): the one of the attribute and the call argument that is set. A
// branch on it decides which layers exist; the count is checked against flax (test/python/build_count.py).
// Fixture: test/fixtures/robust/flax_merge_param.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';

const file = join(__dirname, '..', 'fixtures', 'robust', 'flax_merge_param.py');

test('merge_param picks the value that is set: the branch it decides is followed, count as flax gives it', async () => {
  const text = readFileSync(file, 'utf8');
  const r = await analyze(text, { path: file, device: 'a100-80gb', versions: {} });
  const [real] = runPythonJson<{ params: number | null; error?: string }[]>('build_count.py', [{ dir: dirname(file), path: [], code: text }]);
  assert.ok(typeof real.params === 'number', real.error);
  assert.deepEqual(r.models.map((m) => [m.facts.name, m.facts.paramCount, m.facts.unknowns.length]), [['Block', real.params, 0]]);
});
