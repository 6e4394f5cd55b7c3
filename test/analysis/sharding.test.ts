// JAX parameters placed with jax.device_put(params, NamedSharding(mesh, spec)):
// the training phase divides parameters, gradients and optax state the way
// the spec splits them. The MLP: Dense 16384→16384 twice with biases,
// 2·(16384² + 16384) = 536,903,680 float32 parameters = 2,147,614,720 B.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from '../../server/src/analysis/analyze';
import { specShards } from '../../server/src/phases/sharding';
import type { Value } from '../../server/src/interp/values';

const PARAM_BYTES = 2 * (16384 * 16384 + 16384) * 4;
/** optax ScaleByAdamState also holds the int32 step `count` (4 B) next to mu and nu. */
const COUNT = 4;

const program = (spec: string) => `import jax
import jax.numpy as jnp
import numpy as np
import optax
import flax.linen as nn
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Dense(16384)(x)
        return nn.Dense(16384)(x)


mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))
model = MLP()
params = jax.jit(model.init)(jax.random.PRNGKey(0), jnp.ones((8, 16384)))
params = jax.device_put(params, NamedSharding(mesh, ${spec}))
opt = optax.adam(1e-3)
opt_state = opt.init(params)


@jax.jit
def step(params, opt_state, x):
    loss, grads = jax.value_and_grad(lambda p: jnp.mean(model.apply(p, x) ** 2))(params)
    updates, opt_state = opt.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state


params, opt_state = step(params, opt_state, jnp.ones((8, 16384)))
`;

async function training(spec: string) {
  const r = await analyze(program(spec), { device: '8xh100-80gb' });
  const phase = r.models[0].estimate.phases.find((p) => p.phase === 'training')!;
  const part = (re: RegExp) => phase.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  return { params: part(/^parameters/), grads: part(/^gradients/), opt: part(/^optimizer state/), updated: part(/^updated parameters/), updatedOpt: part(/^updated optimizer state/) };
}

describe('jax.device_put with a NamedSharding', () => {
  it('P(None, ("data", "model")) splits every leaf over 4·2 = 8 devices: params, grads and Adam state / 8', async () => {
    // Per device: params 2,147,614,720 / 8 = 268,451,840; Adam mu + nu 2·that = 536,903,680. The step is jitted
    // without donation, so its peak is at the update, where the new parameters and state (split the same way)
    // are written beside the old ones and the gradients are already consumed.
    const t = await training('P(None, ("data", "model"))');
    assert.equal(t.params, PARAM_BYTES / 8);
    assert.equal(t.updated, PARAM_BYTES / 8);
    assert.equal(t.grads, 0);
    assert.ok(Math.abs(t.updatedOpt - 2 * PARAM_BYTES / 8) <= COUNT, String(t.updatedOpt));
    assert.ok(Math.abs(t.opt - 2 * PARAM_BYTES / 8) <= COUNT, String(t.opt));
  });

  it('P("model") splits over the "model" axis only (2 devices)', async () => {
    const t = await training('P("model")');
    assert.equal(t.params, PARAM_BYTES / 2);
    assert.ok(Math.abs(t.opt - 2 * PARAM_BYTES / 2) <= COUNT, String(t.opt));
  });

  it('P() replicates: every device holds everything', async () => {
    const t = await training('P()');
    assert.equal(t.params, PARAM_BYTES);
    assert.equal(t.opt, 2 * PARAM_BYTES + COUNT);
  });
});

describe('specShards', () => {
  const s = (v: string): Value => ({ t: 'str', v });
  const mesh = new Map<string, number | undefined>([['data', 4], ['model', 2], ['pipe', undefined]]);
  it('multiplies the sizes of the mesh axes a spec names', () => {
    assert.equal(specShards(mesh, { t: 'tuple', items: [s('data'), { t: 'none' }] }), 4);
    assert.equal(specShards(mesh, { t: 'tuple', items: [{ t: 'tuple', items: [s('data'), s('model')] }] }), 8);
  });
  it('says why when a size or the mesh is not known', () => {
    assert.match(String(specShards(mesh, { t: 'tuple', items: [s('pipe')] })), /mesh axis "pipe" is not known/);
    assert.match(String(specShards(undefined, { t: 'tuple', items: [] })), /mesh/);
  });
});

describe('flax.jax_utils.replicate (pmap layout)', () => {
  it('stacks one full copy per device: every device holds the whole tree', async () => {
    // Dense(1024) on 1024 features: 1024² + 1024 = 1,049,600 float32 = 4,198,400 B. replicate over the
    // 4 target devices makes a [4, ...] array split one slice per device: 4,198,400 B on each device,
    // 16,793,600 B in all. Adam (mu, nu) on the replicated tree: 2 × 4,198,400 per device.
    const src = `import jax
import jax.numpy as jnp
import optax
import flax.linen as nn
from flax import jax_utils

model = nn.Dense(1024)
params = model.init(jax.random.PRNGKey(0), jnp.ones((8, 1024)))
params = jax_utils.replicate(params)
opt = optax.adam(1e-3)
opt_state = opt.init(params)
grads = jax.grad(lambda p: jnp.sum(model.apply(p, jnp.ones((8, 1024)))))(params)
`;
    const r = await analyze(src, { device: '4xa100-80gb' });
    const phase = r.models[0].estimate.phases.find((p) => p.phase === 'training')!;
    const part = (re: RegExp) => phase.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
    assert.equal(part(/^parameters/), 4_198_400);
    assert.ok(Math.abs(part(/^optimizer state/) - 2 * 4_198_400) <= COUNT, String(part(/^optimizer state/)));
  });
});

describe('jax.jit out_shardings as a pytree of NamedShardings (plain JAX init)', () => {
  // An embedding table [32768, 512] split by rows and a projection [512, 2048] split by columns over a mesh
  // of 8: per device 32768·512·4 / 8 = 8,388,608 B and 512·2048·4 / 8 = 524,288 B (measured by test/truth on
  // 8 CPU devices: 8,912,920 B of live arrays per device).
  const plain = (partitionable: boolean) => `import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

jax.config.update("jax_threefry_partitionable", ${partitionable ? 'True' : 'False'})


def init_params(key):
    k1, k2 = jax.random.split(key)
    return {
        "embed": jax.random.normal(k1, (32768, 512), jnp.float32) * 0.02,
        "proj": jax.random.normal(k2, (512, 2048), jnp.float32) * 0.02,
    }


mesh = jax.make_mesh((8,), ("model",))
shardings = {"embed": NamedSharding(mesh, P("model", None)), "proj": NamedSharding(mesh, P(None, "model"))}
params = jax.jit(init_params, out_shardings=shardings)(jax.random.PRNGKey(0))
`;
  const init = async (partitionable: boolean) => {
    const r = await analyze(plain(partitionable), { device: '8xa100-80gb' });
    return { phase: r.models[0].estimate.phases.find((p) => p.phase === 'init')!, codes: r.findings.map((f) => f.code) };
  };

  it('places each output leaf by its own spec; partitionable bits add nothing', async () => {
    const { phase, codes } = await init(true);
    assert.equal(phase.peakBytes, 8_388_608 + 524_288);
    assert.ok(!codes.includes('OOM103'));
  });

  it('not partitionable: every device hashes the whole table\'s counters (32768·512·4 B), OOM103', async () => {
    const { phase, codes } = await init(false);
    // the larger draw's bits at once with the parameters: 67,108,864 + 8,912,896 (measured 80.2 MB with both draws' bits)
    assert.equal(phase.peakBytes, 67_108_864 + 8_388_608 + 524_288);
    assert.ok(codes.includes('OOM103'));
  });
});

// An NNX model built inside nnx.jit and constrained to the partition specs its Variables declare
// (nnx.get_partition_spec + jax.lax.with_sharding_constraint): each device keeps its shard. With Auto mesh
// axes the partitioner shards the draws too (measured 8,388,628 B per device on 8 CPU devices with the GPU's
// Threefry lowering, test/truth nnx_sharded_init_auto); with Explicit axes (jax.make_mesh's default from jax
// 0.9.0) every device first draws the whole kernels: a float32 normal / truncated_normal draw leaves erf_inv's
// w and sqrt(w) of the whole kernel, 2 × elements × 4 B, all draws' at once (measured 142,606,356 B per device,
// test/truth nnx_sharded_init; ad hoc with glorot_uniform 8,388,628 B, with bfloat16 lecun_normal 37,748,756 B,
// which is not modelled: a lower bound). Where the axis types are not known the shards are a lower bound,
// never the replicated size presented as the answer.
describe('nnx.jit init resharded by with_sharding_constraint', () => {
  const nnxProgram = (meshArgs: string) => `import jax
from jax.sharding import AxisType
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.up = nnx.Linear(1024, 8192, use_bias=False, rngs=rngs,
                             kernel_init=nnx.with_partitioning(nnx.initializers.lecun_normal(), (None, "model")))
        self.down = nnx.Linear(8192, 1024, use_bias=False, rngs=rngs,
                               kernel_init=nnx.with_partitioning(nnx.initializers.lecun_normal(), ("model", None)))


@nnx.jit
def create_sharded_model():
    model = MLP(rngs=nnx.Rngs(0))
    state = nnx.state(model)
    pspecs = nnx.get_partition_spec(state)
    sharded_state = jax.lax.with_sharding_constraint(state, pspecs)
    nnx.update(model, sharded_state)
    return model


mesh = jax.make_mesh(${meshArgs})
with jax.set_mesh(mesh):
    model = create_sharded_model()
`;
  const initOf = async (meshArgs: string, extra = '', versions: Record<string, string> = {}, edit = (x: string) => x) => {
    const src = edit(nnxProgram(meshArgs)).replace('                               kernel_init=nnx.with_partitioning(nnx.initializers.lecun_normal(), ("model", None)))\n', (l) => l + extra);
    const r = await analyze(src, { device: '8xa100-80gb', versions });
    return r.models[0].estimate.phases.find((p) => p.phase === 'init')!;
  };

  it('Auto axes: each device draws and keeps its shard, 2 · 1024 · 8192 · 4 B / 8', async () => {
    const p = await initOf('(8,), ("model",), axis_types=(AxisType.Auto,)');
    assert.equal(p.peakBytes, 2 * 1024 * 8192 * 4 / 8);
    assert.equal(p.unknowns.length, 0);
  });

  it('Auto axes: a Variable without sharding metadata stays whole on every device (get_partition_spec gives PartitionSpec())', async () => {
    const p = await initOf('(8,), ("model",), axis_types=(AxisType.Auto,)', '        self.gate = nnx.Linear(1024, 1024, use_bias=False, rngs=rngs)\n');
    assert.equal(p.peakBytes, 2 * 1024 * 8192 * 4 / 8 + 1024 * 1024 * 4);
    assert.equal(p.unknowns.length, 0);
  });

  const shards = 2 * 1024 * 8192 * 4 / 8;
  const erfInvPairs = 2 * (2 * 1024 * 8192 * 4);

  it('make_mesh without axis_types and no pinned jax: the shards as a lower bound, the axis types unknown', async () => {
    const p = await initOf('(8,), ("model",)');
    assert.equal(p.peakBytes, shards);
    assert.equal(p.peakIsLowerBound, true);
    assert.notEqual(p.fits, true);
    assert.ok(p.unknowns.some((u) => /axis types are not known/.test(u.reason)));
  });

  it('make_mesh without axis_types under jax==0.8.3 (Auto by default): each device draws its shard', async () => {
    const p = await initOf('(8,), ("model",)', '', { jax: '0.8.3' });
    assert.equal(p.peakBytes, shards);
    assert.equal(p.unknowns.length, 0);
  });

  it('Explicit axes (make_mesh\'s default under jax==0.10.2): lecun_normal draws leave erf_inv\'s w and sqrt(w) of each whole kernel', async () => {
    for (const [args, versions] of [['(8,), ("model",)', { jax: '0.10.2' }], ['(8,), ("model",), axis_types=(AxisType.Explicit,)', {}]] as const) {
      const p = await initOf(args, '', versions);
      assert.equal(p.peakBytes, shards + erfInvPairs, args);
      assert.equal(p.unknowns.length, 0);
      assert.equal(p.peakIsLowerBound, false);
    }
  });

  it('Explicit axes: a float32 uniform draw fuses into the shard (glorot_uniform: measured 8,388,628 B)', async () => {
    const p = await initOf('(8,), ("model",), axis_types=(AxisType.Explicit,)', '', {}, (x) => x.replaceAll('lecun_normal()', 'glorot_uniform()'));
    assert.equal(p.peakBytes, shards);
    assert.equal(p.unknowns.length, 0);
  });

  it('Explicit axes: a bfloat16 draw is not modelled, the shards are a lower bound', async () => {
    const p = await initOf('(8,), ("model",), axis_types=(AxisType.Explicit,)', '', {}, (x) => x.replaceAll('use_bias=False, rngs=rngs,', 'use_bias=False, rngs=rngs, param_dtype=jax.numpy.bfloat16,'));
    assert.equal(p.peakBytes, shards / 2);
    assert.equal(p.peakIsLowerBound, true);
    assert.ok(p.unknowns.some((u) => /bfloat16 draw/.test(u.reason)));
  });

  // Without the constraint: flax NNX reshards each Variable with sharding metadata as it is made under a mesh,
  // from flax 0.12.0 (flax_always_shard_variable). Measured (harness, 8 CPU devices, flax 0.12.8, the program above
  // without the four constraint lines): 142,606,356 B per device on Explicit axes, 8,388,628 B on Auto axes.
  const noConstraint = (x: string) => x.replace(/ {4}state = nnx\.state\(model\)\n[\s\S]*?nnx\.update\(model, sharded_state\)\n/, '');
  it('no constraint, flax 0.12.8: each Variable is resharded as it is made (Explicit: the whole draws too; Auto: the shards)', async () => {
    const explicit = await initOf('(8,), ("model",)', '', { jax: '0.10.2', flax: '0.12.8' }, noConstraint);
    assert.equal(explicit.peakBytes, shards + erfInvPairs);
    assert.equal(explicit.unknowns.length, 0);
    const auto = await initOf('(8,), ("model",), axis_types=(AxisType.Auto,)', '', { flax: '0.12.8' }, noConstraint);
    assert.equal(auto.peakBytes, shards);
    assert.equal(auto.unknowns.length, 0);
  });

  it('no constraint, flax 0.11.2 (no eager sharding): the kernels stay whole on every device', async () => {
    const p = await initOf('(8,), ("model",), axis_types=(AxisType.Auto,)', '', { flax: '0.11.2' }, noConstraint);
    assert.equal(p.peakBytes, 2 * 1024 * 8192 * 4);
  });

  it('no constraint, flax not pinned: the shards as a lower bound, never the whole kernels as the answer', async () => {
    const p = await initOf('(8,), ("model",), axis_types=(AxisType.Explicit,)', '', {}, noConstraint);
    assert.equal(p.peakBytes, shards);
    assert.equal(p.peakIsLowerBound, true);
    assert.ok(p.unknowns.some((u) => /flax version is not pinned/.test(u.reason)));
  });

  it('flax 0.12.8 and the constraint: each whole draw is counted once', async () => {
    const p = await initOf('(8,), ("model",), axis_types=(AxisType.Explicit,)', '', { flax: '0.12.8' });
    assert.equal(p.peakBytes, shards + erfInvPairs);
    assert.equal(p.unknowns.length, 0);
  });

  it('Explicit axes: an initializer whose sampler is not known (orthogonal) leaves the draw unknown', async () => {
    const p = await initOf('(8,), ("model",), axis_types=(AxisType.Explicit,)', '', {}, (x) => x.replaceAll('lecun_normal()', 'orthogonal()'));
    assert.equal(p.peakIsLowerBound, true);
    assert.ok(p.unknowns.some((u) => /sampler is not known/.test(u.reason)));
  });
});
