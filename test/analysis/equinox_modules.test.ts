// Equinox containers and layers counted from the construction alone: the
// expected numbers are worked out next to each case from the layer shapes in
// equinox/nn/_linear.py and _sequential.py (v0.11.4).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

async function count(src: string, model: string) {
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === model);
  assert.ok(m, `no model ${model}: ${r.models.map((x) => x.facts.name).join(', ')}`);
  return m.facts;
}

test('eqx.nn.Sequential: its layers are the parameters; an unknown layer makes the count unknown', async () => {
  const src = (extra: string) => `import equinox as eqx
import jax

class M(eqx.Module):
    net: eqx.nn.Sequential
    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.net = eqx.nn.Sequential([eqx.nn.Linear(4, 8, key=k1), eqx.nn.Lambda(jax.nn.relu), eqx.nn.Linear(8, 2, key=k2)${extra}])

m = M(jax.random.PRNGKey(0))
`;
  // Linear(4, 8): 4*8 + 8 = 40; Linear(8, 2): 8*2 + 2 = 18; Lambda: none.
  const ok = await count(src(''), 'M');
  assert.deepEqual(ok.unknowns, []);
  assert.equal(ok.paramCount, 40 + 18);
  const lost = await count(src(', make_head()'), 'M');
  assert.equal(lost.paramCount, null);
  assert.ok(lost.unknowns.some((u) => /Sequential holds a layer that is not known/.test(u.reason)), JSON.stringify(lost.unknowns));
});

test('eqx.nn.LayerNorm(elementwise_affine=False) has no parameters; PReLU has one slope', async () => {
  const f = await count(`import equinox as eqx
import jax

class M(eqx.Module):
    a: eqx.nn.LayerNorm
    b: eqx.nn.LayerNorm
    c: eqx.nn.PReLU
    def __init__(self):
        self.a = eqx.nn.LayerNorm(16, elementwise_affine=False)
        self.b = eqx.nn.LayerNorm(16)
        self.c = eqx.nn.PReLU()

m = M()
`, 'M');
  // a: none (the deprecated flag turns both off); b: 16 + 16; c: a 0-d slope, 1 element.
  assert.equal(f.paramCount, 32 + 1);
});
