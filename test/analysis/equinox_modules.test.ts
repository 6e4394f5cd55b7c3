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

test('eqx.nn.Sequential of layers built at module level is one model (was one per layer; an unknown layer vanished)', async () => {
  const src = (vocab: string) => `import jax, jax.numpy as jnp, equinox as eqx
${vocab}
model = eqx.nn.Sequential([eqx.nn.Linear(1024, 4096, key=jax.random.key(0)), eqx.nn.Linear(4096, vocab, key=jax.random.key(1))])
`;
  const r = await analyze(src('vocab = 50000'), { device: 'a100-40gb', versions: {} });
  // eqx.nn.Linear(1024, 4096) + Linear(4096, 50000), weights and biases.
  assert.deepEqual(r.models.map((m) => [m.facts.name, m.facts.paramCount]), [['Sequential', 1024 * 4096 + 4096 + 4096 * 50000 + 50000]]);
  const u = await analyze(src('import os\nvocab = int(os.environ["VOCAB"])'), { device: 'a100-40gb', versions: {} });
  assert.deepEqual(u.models.map((m) => [m.facts.name, m.facts.paramCount]), [['Sequential', null]]);
});

test('a module that vmaps its own layers, vmapped again over the batch: each array is batch × sequence × features (was × sequence twice)', async () => {
  const src = `import jax, jax.numpy as jnp, equinox as eqx, optax


class Net(eqx.Module):
    layers: tuple

    def __init__(self, key):
        self.layers = tuple(eqx.nn.Linear(1024, 1024, key=k) for k in jax.random.split(key, 4))

    def __call__(self, x):
        for l in self.layers:
            x = jax.vmap(l)(x)
        return x


model = Net(jax.random.key(0))


@eqx.filter_jit
def compute_loss(model, x, y):
    return jnp.mean((jax.vmap(model)(x) - y) ** 2)


optimizer = optax.adamw(learning_rate=1e-3)
opt_state = optimizer.init(eqx.filter(model, eqx.is_array))
x = jnp.ones((8, 256, 1024)); y = jnp.ones((8, 256, 1024))
for step in range(100):
    loss, grads = eqx.filter_value_and_grad(compute_loss)(model, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, model)
    model = eqx.apply_updates(model, updates)
`;
  const r = await analyze(src, { device: 'a100-40gb', versions: {} });
  const p = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
  const acts = p.breakdown.filter((b) => /^activations/.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  // Each layer's output is [8, 256, 1024] float32 = 8,388,608 B; a handful of them, never [8, 256, 256, 1024].
  assert.ok(acts > 0 && acts < 20 * 8 * 256 * 1024 * 4, String(acts));
});

test('an Equinox Module of callables and floats passed beside the model (an SDE object) is no model, and the model still trains (optax.adabelief)', async () => {
  const src = `import jax, jax.numpy as jnp, equinox as eqx, optax


class VPSDE(eqx.Module):
    beta_integral_fn: callable
    t1: float

    def __init__(self, beta_integral_fn, t1=1.0):
        self.beta_integral_fn = beta_integral_fn
        self.t1 = t1


def loss_fn(model, sde, x):
    return jnp.mean(jax.vmap(model)(x) ** 2) * sde.t1


@eqx.filter_jit
def make_step(model, sde, x, opt_state):
    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, sde, x)
    updates, opt_state = opt.update(grads, opt_state, model)
    return loss, eqx.apply_updates(model, updates), opt_state


model = eqx.nn.MLP(1024, 1024, 4096, 4, key=jax.random.key(0))
sde = VPSDE(lambda t: t, t1=8.0)
opt = optax.adabelief(1e-4)
opt_state = opt.init(eqx.filter(model, eqx.is_inexact_array))
x = jnp.ones((32, 1024))
for step in range(1000):
    loss, model, opt_state = make_step(model, sde, x, opt_state)
`;
  const r = await analyze(src, { device: 'a100-40gb', versions: {} });
  // eqx.nn.MLP(1024, 1024, width 4096, depth 4): 1024·4096 + 3·4096·4096 + 4096·1024 weights and the biases.
  const P = 1024 * 4096 + 4096 + 3 * (4096 * 4096 + 4096) + 4096 * 1024 + 1024;
  assert.deepEqual(r.models.map((m) => [m.facts.name, m.facts.paramCount]), [['MLP', P]]);
  const p = r.models[0].estimate.phases.find((x) => x.phase === 'training');
  assert.ok(p, 'a training phase');
  // optax.adabelief: mu and nu like the parameters (scale_by_belief), + the int32 count.
  assert.equal(p.breakdown.filter((b) => /^optimizer state: optax\.adabelief/.test(b.label)).reduce((a, b) => a + b.bytes, 0), 8 * P + 4);
});
