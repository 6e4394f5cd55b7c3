// Flax lifted transforms of a Module class (flax/linen/transforms.py vmap, scan): nn.scan over a block stacks its
// parameters along the steps, nn.vmap shares them (variable_axes {'params': None}) or stacks them (an axis, with
// axis_size). Found on lindermanlab/S5 (a module-level `nn.vmap(ClassificationModel, ...)`): the file reported
// "No model found" with no unknown. Counts are checked against flax (test/python/build_count.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { countedBoth } from '../python/venv';

const file = join(__dirname, '..', 'fixtures', 'robust', 'flax_lifted.py');

test('nn.scan and nn.vmap of Module classes: the count flax gives', async () => {
  const { oomlens, framework, result: r } = await countedBoth(file);
  assert.deepEqual(oomlens, [['Deep', framework, 0]]);
  // The scanned block's kernel has the steps as its leading axis; the shared MLP's none; the ensemble's 5.
  const shapes = r.models[0].facts.params.map((p) => p.shape.join('x')).sort();
  assert.deepEqual(shapes, ['256', '256x512', '512', '512x256', '5x256', '5x256x512', '5x512', '5x512x256', '6x256', '6x256', '6x256', '6x256x256']);
});

test('a module-level nn.vmap of a Module class, initialised through an instance: a model, not "no model found"', async () => {
  const text = `import jax
import jax.numpy as jnp
import flax.linen as nn


class MLP(nn.Module):
    d_model: int

    @nn.compact
    def __call__(self, x):
        return nn.Dense(self.d_model)(x)


BatchMLP = nn.vmap(MLP, in_axes=0, out_axes=0, variable_axes={"params": None}, split_rngs={"params": False})
model = BatchMLP(d_model=1024)
params = model.init(jax.random.PRNGKey(0), jnp.ones((8, 16, 1024)))["params"]
`;
  const r = await analyze(text, { device: 'a100-80gb', versions: {} });
  assert.deepEqual(r.models.map((m) => [m.facts.name, m.facts.paramCount]), [['MLP', 1024 * 1024 + 1024]]);
});
