// Flax NNX models counted from their constructors, against the real flax:
// test/python/nnx_counts.py builds each case with `nnx.eval_shape(build)` and
// counts its nnx.Param and nnx.BatchStat leaves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';

const HEAD = `import jax
import jax.numpy as jnp
from functools import partial
from flax import nnx
`;

const CASES: Record<string, { src: string; model: string }> = {
  mlp: { model: 'MLP', src: `${HEAD}
class MLP(nnx.Module):
    def __init__(self, din, dhidden, dout, *, rngs: nnx.Rngs):
        self.linear1 = nnx.Linear(din, dhidden, rngs=rngs)
        self.dropout = nnx.Dropout(0.1, rngs=rngs)
        self.linear2 = nnx.Linear(dhidden, dhidden // 2, use_bias=False, rngs=rngs)
        self.head = nnx.Linear(dhidden // 2, dout, param_dtype=jnp.bfloat16, dtype=jnp.bfloat16, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.dropout(self.linear1(x)))
        return self.head(nnx.gelu(self.linear2(x)))

def build():
    return MLP(784, 512, 10, rngs=nnx.Rngs(0))
` },
  // The CNN of flax's examples/mnist, written with NNX (docs/mnist_tutorial).
  cnn: { model: 'CNN', src: `${HEAD}
class CNN(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.conv1 = nnx.Conv(1, 32, kernel_size=(3, 3), rngs=rngs)
        self.conv2 = nnx.Conv(32, 64, kernel_size=(3, 3), rngs=rngs)
        self.avg_pool = partial(nnx.avg_pool, window_shape=(2, 2), strides=(2, 2))
        self.linear1 = nnx.Linear(3136, 256, rngs=rngs)
        self.linear2 = nnx.Linear(256, 10, rngs=rngs)

    def __call__(self, x):
        x = self.avg_pool(nnx.relu(self.conv1(x)))
        x = self.avg_pool(nnx.relu(self.conv2(x)))
        x = x.reshape(x.shape[0], -1)
        return self.linear2(nnx.relu(self.linear1(x)))

def build():
    return CNN(rngs=nnx.Rngs(0))
` },
  transformer: { model: 'Transformer', src: `${HEAD}
class Block(nnx.Module):
    def __init__(self, d, heads, *, rngs):
        self.ln1 = nnx.LayerNorm(d, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(num_heads=heads, in_features=d, decode=False, rngs=rngs)
        self.ln2 = nnx.LayerNorm(d, use_bias=False, rngs=rngs)
        self.up = nnx.Linear(d, 4 * d, rngs=rngs)
        self.down = nnx.Linear(4 * d, d, rngs=rngs)

class GQABlock(nnx.Module):
    def __init__(self, d, *, rngs):
        self.norm = nnx.RMSNorm(d, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(8, d, qkv_features=128, out_features=64, num_kv_heads=2, normalize_qk=True, use_bias=False, rngs=rngs)

class Transformer(nnx.Module):
    def __init__(self, vocab, d, heads, n_layers, *, rngs):
        self.embed = nnx.Embed(vocab, d, rngs=rngs)
        self.blocks = nnx.List([Block(d, heads, rngs=rngs) for _ in range(n_layers)])
        self.extra = GQABlock(d, rngs=rngs)
        self.final = nnx.LayerNorm(d, rngs=rngs)

def build():
    return Transformer(1000, 256, 8, 3, rngs=nnx.Rngs(0))
` },
  batchnorm: { model: 'ConvNet', src: `${HEAD}
class ConvNet(nnx.Module):
    def __init__(self, rngs):
        self.conv = nnx.Conv(3, 16, kernel_size=(5, 5), strides=2, use_bias=False, rngs=rngs)
        self.bn = nnx.BatchNorm(16, rngs=rngs)
        self.conv2 = nnx.Conv(16, 32, 3, feature_group_count=4, rngs=rngs)
        self.gn = nnx.GroupNorm(32, num_groups=8, rngs=rngs)
        self.up = nnx.ConvTranspose(32, 8, kernel_size=(2, 2), strides=(2, 2), rngs=rngs)
        self.bn2 = nnx.BatchNorm(8, use_scale=False, param_dtype=jnp.float16, rngs=rngs)

def build():
    return ConvNet(nnx.Rngs(params=0))
` },
  sequential: { model: 'Sequential', src: `${HEAD}
def build():
    rngs = nnx.Rngs(0)
    return nnx.Sequential(
        nnx.Linear(32, 64, rngs=rngs),
        nnx.relu,
        nnx.Linear(64, 64, rngs=rngs),
        nnx.LayerNorm(64, rngs=rngs),
        nnx.Linear(64, 3, rngs=rngs),
    )
` },
  custom: { model: 'Custom', src: `${HEAD}
class Custom(nnx.Module):
    def __init__(self, din, dout, *, rngs):
        key = rngs.params()
        self.w = nnx.Param(jax.random.normal(key, (din, dout)))
        self.b = nnx.Param(jnp.zeros((dout,), jnp.bfloat16))
        self.count = nnx.BatchStat(jnp.zeros((dout,)))
        self.scale = nnx.Variable(jnp.ones((din,)))
        self.proj = nnx.LinearGeneral(din, (4, 8), rngs=rngs)
        self.out = nnx.LinearGeneral((4, 8), dout, axis=(-2, -1), rngs=rngs)
        self.mix = nnx.Einsum('ab,bc->ac', (din, dout), (dout,), rngs=rngs)
        self.act = nnx.PReLU()
        self.heads = nnx.Dict({'a': nnx.Linear(dout, 2, rngs=rngs), 'b': nnx.Linear(dout, 3, rngs=rngs)})

    def __call__(self, x):
        return x @ self.w.value + self.b[...]

def build():
    return Custom(24, 40, rngs=nnx.Rngs(0))
` },
  // A Variable type of the user's own, declared with a subscripted generic base (PEP 560 __mro_entries__).
  generic_variable: { model: 'Counted', src: `${HEAD}
class Count(nnx.Variable[nnx.A]):
    pass

class Counted(nnx.Module):
    def __init__(self, din, dout, *, rngs: nnx.Rngs):
        self.count = Count(jnp.zeros((3,), jnp.int32))
        self.w = nnx.Param(jax.random.uniform(rngs.params(), (din, dout)))
        self.b = nnx.Param(jnp.zeros((dout,)))

    def __call__(self, x):
        self.count[...] += 1
        return x @ self.w.value + self.b.value

def build():
    return Counted(5, 7, rngs=nnx.Rngs(0))
` },
};

type Truth = Record<string, { params: number; batch_stats: number; state: number; param_dtypes: string[] }>;

test('NNX models: parameter and state counts equal the real flax (nnx.eval_shape)', async () => {
  const truth = runPythonJson<Truth>('nnx_counts.py', { cases: Object.fromEntries(Object.entries(CASES).map(([k, v]) => [k, v.src])) });
  // The cases exercise what they claim: batch stats in one, plain Variables beside them in another.
  assert.ok(truth.batchnorm.batch_stats > 0 && truth.custom.state > truth.custom.batch_stats);
  for (const [name, c] of Object.entries(CASES)) {
    const r = await analyze(`${c.src}\nmodel = build()\n`, { device: 'a100-80gb', versions: {} });
    const m = r.models.find((x) => x.facts.name === c.model);
    assert.ok(m, `${name}: no model ${c.model}: ${r.models.map((x) => x.facts.name).join(', ')}`);
    assert.equal(r.models.length, 1, `${name}: one model, not its layers: ${r.models.map((x) => x.facts.name).join(', ')}`);
    assert.deepEqual(m.facts.unknowns, [], `${name}: ${JSON.stringify(m.facts.unknowns)}`);
    assert.equal(m.facts.paramCount, truth[name].params, `${name}: params`);
    // Non-trainable state (BatchStat, Variable) is kept in memory but not counted as parameters.
    const state = m.facts.buffers.reduce((a, b) => a + b.shape.reduce((x, y) => x * y, 1), 0);
    assert.equal(state, truth[name].state, `${name}: non-trainable state`);
    assert.deepEqual([...new Set(m.facts.params.map((p) => p.dtype))].sort(), truth[name].param_dtypes, `${name}: param dtypes`);
  }
});

const MLP = `${HEAD}import optax

class MLP(nnx.Module):
    def __init__(self, *, rngs):
        self.l1 = nnx.Linear(1024, 4096, rngs=rngs)
        self.l2 = nnx.Linear(4096, 10, rngs=rngs)

    def __call__(self, x):
        return self.l2(nnx.relu(self.l1(x)))
`;

test('nnx.eval_shape builds nothing; nnx.split / state / merge keep the same buffers', async () => {
  const abstract = await analyze(`${MLP}\nabstract = nnx.eval_shape(lambda: MLP(rngs=nnx.Rngs(0)))\n`, { device: 'a100-80gb', versions: {} });
  assert.deepEqual(abstract.models.map((m) => m.facts.name), []);
  const r = await analyze(`${MLP}
model = MLP(rngs=nnx.Rngs(0))
graphdef, params, rest = nnx.split(model, nnx.Param, ...)
state = nnx.state(model, nnx.Param)
model2 = nnx.merge(graphdef, params, rest)
y = nnx.jit(lambda m, x: m(x))(model2, jnp.ones((8, 1024)))
`, { device: 'a100-80gb', versions: {} });
  assert.deepEqual(r.models.map((m) => m.facts.name), ['MLP']);
  const m = r.models[0].facts;
  // l1: 1024*4096 + 4096 = 4,198,400; l2: 4096*10 + 10 = 40,970.
  assert.equal(m.paramCount, 4_198_400 + 40_970);
  const init = m.phases.find((p) => p.phase === 'init')!;
  const allocated = init.events.filter((e) => e.op === 'alloc').reduce((a, e) => a + (e.op === 'alloc' ? e.tensor.shape.reduce((x, y) => x * y, 1) : 0), 0);
  assert.equal(allocated, 4_198_400 + 40_970, 'split/state/merge copy nothing');
});

test('nnx.Optimizer(model, optax.adamw(...), wrt=nnx.Param) gives a training phase with Adam state for the Params', async () => {
  const r = await analyze(`${MLP}
model = MLP(rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)

@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return ((model(x) - y) ** 2).mean()
    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss

for step in range(10):
    loss = train_step(model, optimizer, jnp.ones((32, 1024)), jnp.ones((32, 10)))
`, { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === 'MLP')!.facts;
  const train = m.phases.find((p) => p.phase === 'training');
  assert.ok(train, `phases: ${m.phases.map((p) => p.phase).join(', ')}`);
  // (nnx.jit without donate_argnums also writes the updated state beside it: counted apart, phases/training.ts.)
  const opt = train.events.filter((e) => e.op === 'alloc' && e.tensor.role === 'optimizer' && !/^updated /.test(e.tensor.group ?? e.tensor.label));
  // adamw keeps mu and nu, each the Params' size in float32: 2 × 4,239,370 × 4 B, and an int32 step count (4 B).
  const bytes = opt.reduce((a, e) => a + (e.op === 'alloc' ? e.tensor.shape.reduce((x, y) => x * y, 1) : 0), 0);
  assert.equal(bytes, 2 * (4_198_400 + 40_970) * 4 + 4);
});
