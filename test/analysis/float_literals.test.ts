// Literal data whose floats are whole numbers (`torch.tensor([1.0, 2.0])`, `jnp.array(1.0)`, `torch.full(s, 0.0)`):
// the catalogue receives Python numbers, where 1.0 and 1 are the same JS number; the arguments that held a Python
// float are named beside them (interp.ts bindCatalogue), so the data stays float32 and not int64 / int32. Checked
// against the parameters' bytes PyTorch and JAX themselves give (test/python/param_bytes.py).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';

const dir = join(__dirname, '..', 'fixtures', 'float_literals');

for (const name of ['torch_literals.py', 'jax_literals.py']) {
  it(`${name}: parameter bytes equal the framework's (whole-number float literals stay float32)`, async () => {
    const file = join(dir, name);
    const text = readFileSync(file, 'utf8');
    const r = await analyze(text, { path: file, device: 'a100-80gb', versions: {} });
    assert.equal(r.models.length, 1, r.models.map((m) => m.facts.name).join(', '));
    const [real] = runPythonJson<{ bytes: number | null; error?: string }[]>('param_bytes.py', [{ code: text }]);
    assert.equal(typeof real.bytes, 'number', real.error);
    assert.equal(r.models[0].estimate.paramBytes, real.bytes);
    assert.deepEqual(r.models[0].facts.unknowns, []);
  });
}
