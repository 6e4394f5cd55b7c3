// flax.linen logical partitioning: with_logical_partitioning names the
// parameter axes logically, logical_to_mesh_sharding(tree, mesh, rules) maps
// them to mesh axes (flax/linen/spmd.py, flax 0.12.8), with_logical_constraint
// leaves the activation as it is. Two Dense kernels of 16384 × 16384 float32
// = 1,073,741,824 B each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyze } from '../../server/src/analysis/analyze';

const KERNEL = 16384 * 16384 * 4;

const program = (rules: string) => `import jax
import jax.numpy as jnp
import numpy as np
import flax.linen as nn
from jax.sharding import Mesh


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Dense(16384, use_bias=False, kernel_init=nn.with_logical_partitioning(nn.initializers.lecun_normal(), ("embed", "mlp")))(x)
        x = nn.with_logical_constraint(x, ("batch", "mlp"))
        return nn.Dense(16384, use_bias=False, kernel_init=nn.with_logical_partitioning(nn.initializers.lecun_normal(), ("mlp", "embed")))(x)


mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))
rules = ${rules}
model = MLP()
x = jnp.ones((8, 16384))
abstract = jax.eval_shape(model.init, jax.random.PRNGKey(0), x)
sharding = nn.logical_to_mesh_sharding(nn.get_partition_spec(abstract), mesh, rules)
params = jax.jit(model.init, out_shardings=sharding)(jax.random.PRNGKey(0), x)
`;

async function paramsPerDevice(rules: string): Promise<{ count: number | null; bytes: number }> {
  const r = await analyze(program(rules), { device: '8xh100-80gb' });
  assert.equal(r.models.length, 1, r.models.map((m) => m.facts.name).join(', '));
  const init = r.models[0].estimate.phases.find((p) => p.phase === 'init')!;
  const bytes = init.breakdown.filter((c) => /^Dense_\d \(/.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  return { count: r.models[0].facts.paramCount, bytes };
}

test('with_logical_partitioning + logical_to_mesh_sharding rules: kernels divided over the mesh axes the rules name', async () => {
  // "mlp" → ("data", "model") = 4 · 2 = 8 devices, "embed" → None: each kernel / 8 per device.
  const sharded = await paramsPerDevice('(("batch", "data"), ("embed", None), ("mlp", ("data", "model")))');
  assert.equal(sharded.count, 2 * 16384 * 16384);
  assert.equal(sharded.bytes, (2 * KERNEL) / 8);
  // "mlp" → "model" only: / 2.
  const byModel = await paramsPerDevice('(("mlp", "model"), ("embed", None))');
  assert.equal(byModel.bytes, (2 * KERNEL) / 2);
  // Every logical axis replicated: whole kernels on each device.
  const replicated = await paramsPerDevice('(("mlp", None), ("embed", None))');
  assert.equal(replicated.bytes, 2 * KERNEL);
});
