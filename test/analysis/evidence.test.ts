// No fake results: what is not a model is not reported as one. A bare
// layer on its own, the statements of a class whose header a syntax error
// broke, and a half-typed hub id each stay silent (or are an honest
// "unknown checkpoint"), while real models around them are still found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const names = async (src: string) => (await analyze(src, { device: 'a100-80gb' })).models.map((m) => m.facts.name);

test('a bare layer is not a model; a class of the program, a Sequential and a composite catalogue module are', async () => {
  const src = `import torch.nn as nn
lin = nn.Linear(10, 10)
act = nn.GELU()
drop = nn.Dropout(0.1)
emb = nn.Embedding(50000, 768)

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(768, 3072)

net = Block()
seq = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 2))
mha = nn.MultiheadAttention(64, 4)
`;
  const r = await analyze(src, { device: 'a100-80gb' });
  assert.deepEqual(r.models.map((m) => m.facts.name), ['Block', 'Sequential', 'MultiheadAttention']);
  // Sequential(Linear(10, 20), ReLU, Linear(20, 2)): 10*20+20 + 20*2+2 = 262, its layers absorbed.
  assert.equal(r.models[1].facts.paramCount, 262);
  assert.deepEqual(await names('import jax\nimport equinox as eqx\nlin = eqx.nn.Linear(3, 4, key=jax.random.PRNGKey(0))\n'), []);
  assert.deepEqual(await names('import jax\nimport equinox as eqx\nmlp = eqx.nn.MLP(4, 2, 8, 2, key=jax.random.PRNGKey(0))\n'), ['MLP']);
});

// Found on yunjey/pytorch-tutorial-style scripts: `model = nn.Linear(input_size, num_classes)` trained on its own
// (logistic regression) reported "No model found".
test('a bare layer the program gives an optimizer is its model', async () => {
  const r = await analyze(`import torch
import torch.nn as nn

model = nn.Linear(784, 10).cuda()
emb = nn.Embedding(1000, 64)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(100, 784, device="cuda")
y = torch.randint(0, 10, (100,), device="cuda")
for epoch in range(5):
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
`, { device: 't4' });
  assert.deepEqual(r.models.map((m) => [m.facts.name, m.facts.paramCount]), [['Linear', 784 * 10 + 10]]);
  assert.ok(r.models[0].facts.phases.some((p) => p.phase === 'training'));
});

test('a class body cut loose by a syntax error reports nothing from its lines', async () => {
  const broken = `import torch.nn as nn

class Net(nn.Module)
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(768, 3072)
        self.proj = nn.Linear(3072, 768)

net = Net()
`;
  const r = await analyze(broken, { device: 'a100-80gb' });
  assert.ok(r.unknowns.some((u) => /syntax/.test(u.reason)));
  assert.deepEqual(r.models.map((m) => m.facts.name), []);
  // Fixed, the same file has its model.
  assert.deepEqual(await names(broken.replace('(nn.Module)\n', '(nn.Module):\n')), ['Net']);
});

test('typing a hub id character by character: no OOM201 and no numbers until the id is known', async () => {
  const id = 'meta-llama/Llama-2-7b-hf';
  const seen: string[] = [];
  for (let n = 1; n <= id.length; n++) {
    const partial = id.slice(0, n);
    const r = await analyze(`from transformers import AutoModelForCausalLM\nm = AutoModelForCausalLM.from_pretrained("${partial}")\n`, { device: 'a100-80gb' });
    const fired = r.findings.some((f) => f.code === 'OOM201');
    if (fired) seen.push(partial);
    const m = r.models[0];
    if (partial !== id && m) {
      assert.equal(m.facts.paramCount, null, `"${partial}" has no parameter count`);
      assert.ok([...m.facts.unknowns, ...m.estimate.unknowns].some((u) => /unknown checkpoint/.test(u.reason)), `"${partial}" is an unknown checkpoint`);
    }
  }
  assert.deepEqual(seen, [id], 'OOM201 fires only once the id is a known checkpoint');
});

test('blocks built first and handed down into a model (through a ModuleList and another module) are its parts, not models of their own', async () => {
  const src = `import torch.nn as nn

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)

class Encoder(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers

class Net(nn.Module):
    def __init__(self, encoder, vocab):
        super().__init__()
        self.encoder = encoder
        self.emb = nn.Embedding(vocab, 8)

def build(vocab):
    blocks = []
    for _ in range(3):
        block = Block(8)
        blocks.append(block)
    return Net(Encoder(nn.ModuleList(blocks)), vocab)

model = build(100)
other = build(open('vocab.txt').read())
q, q_target = Block(4), Block(4)
`;
  const r = await analyze(src, { device: 'a100-80gb' });
  const got = r.models.map((m) => [m.facts.name, m.facts.paramCount]);
  // The known model (3 * 72 + 800), the one whose vocabulary is unknown (its blocks are still its parts), and two
  // separate Blocks that nothing holds.
  assert.deepEqual(got, [['Net', 1016], ['Net', null], ['Block', 20], ['Block', 20]]);
});

test('a call that leaves out a required argument raises TypeError in Python: the model it would build has no count', async () => {
  const src = `import torch.nn as nn

class Net(nn.Module):
    def __init__(self, d, key):
        super().__init__()
        self.fc = nn.Linear(d, d)

model = Net(8)
ok = Net(8, key=None)
`;
  const r = await analyze(src, { device: 'a100-80gb' });
  const [bad, good] = r.models;
  assert.equal(bad.facts.paramCount, null);
  assert.match(bad.facts.unknowns.map((u) => u.reason).join('\n'), /leaves out the required argument `key` of __init__: Python raises TypeError/);
  assert.equal(good.facts.paramCount, 72);
  assert.deepEqual(good.facts.unknowns, []);
});

// luchris429/purejaxrl's multi-seed idiom, `jax.jit(jax.vmap(make_train(config)))(rngs)`: the vmapped call's record
// allocated nothing and was reported as a model "stack · 0 parameters, init 0 B, fits" (never "0 B").
test('a vmapped training closure that allocates nothing is not a model', async () => {
  const r = await analyze(`import jax, jax.numpy as jnp
import flax.linen as nn
import optax
from flax.training.train_state import TrainState

class QNetwork(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(18)(nn.relu(nn.Dense(4096)(x)))

def make_train(config):
    def train(rng):
        network = QNetwork()
        params = network.init(rng, jnp.zeros((1024,)))
        state = TrainState.create(apply_fn=network.apply, params=params, tx=optax.adam(1e-3))
        def loss_fn(p, x):
            return jnp.mean(network.apply(p, x) ** 2)
        def step(state, _):
            grads = jax.grad(loss_fn)(state.params, jnp.ones((256, 1024)))
            return state.apply_gradients(grads=grads), None
        state, _ = jax.lax.scan(step, state, None, 100)
        return state
    return train

rngs = jax.random.split(jax.random.PRNGKey(0), 4)
out = jax.jit(jax.vmap(make_train({})))(rngs)
`, { device: 'a100-40gb', versions: {} });
  assert.ok(!r.models.some((m) => m.facts.paramCount === 0 && m.estimate.phases.some((p) => p.peakBytes === 0)), JSON.stringify(r.models.map((m) => [m.facts.name, m.facts.paramCount])));
});

// Lornatang/SRGAN-PyTorch builds its PSNR metric (an nn.Module with no tensor) in utils.py: a module built in another
// file skipped the no-tensor rule and was reported as "PSNR · 0 parameters, load 0 B ✓ fits".
test('a module with no tensor built in an imported file is not a model either', async () => {
  const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { analyzeFile } = await import('../../server/src/program/project');
  const root = mkdtempSync(join(tmpdir(), 'oomlens-empty-'));
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, 'metrics.py'), 'import torch.nn as nn\n\nclass PSNR(nn.Module):\n    def __init__(self, crop_border=0):\n        super().__init__()\n        self.crop_border = crop_border\n\ndef build_metric():\n    return PSNR().to("cuda")\n');
  const text = 'import torch.nn as nn\nfrom metrics import build_metric\n\nmodel = nn.Sequential(nn.Linear(64, 64)).cuda()\npsnr = build_metric()\n';
  writeFileSync(join(root, 'train.py'), text);
  const r = await analyzeFile(text, { path: join(root, 'train.py'), device: 't4' });
  assert.deepEqual(r.models.map((m) => m.facts.name), ['Sequential']);
});

// An equinox Module is any pytree class: a stateless solver or a settings object the program defines (diffrax's Tsit5,
// a helper round's "Euler") was reported as a model with "0 parameters, init 0 B ✓ fits". Holding no array, it is none.
test('an equinox Module holding no array is not a model', async () => {
  const { analyze } = await import('../../server/src/analysis/analyze');
  const r = await analyze(`import jax, jax.numpy as jnp, jax.random as jr
import equinox as eqx

class Euler(eqx.Module):
    def step(self, f, y, dt):
        return y + dt * f(y)

solver = Euler()
model = eqx.nn.MLP(2, 2, 64, 2, key=jr.PRNGKey(1))
`, { device: 'a100-40gb', versions: {} });
  assert.deepEqual(r.models.map((m) => [m.facts.name, m.facts.paramCount]), [['MLP', 2 * 64 + 64 + 64 * 64 + 64 + 64 * 2 + 2]]);
});

// diffrax's `SaveAt(ts=jnp.linspace(0, 1, 100))` (an equinox Module holding a data array) was a "model" of 100
// parameters beside the real one: an equinox Module with no randomly initialised array is a data container.
test('an equinox Module holding only data arrays is not a model; one with initialised layers is', async () => {
  const { analyze } = await import('../../server/src/analysis/analyze');
  const r = await analyze(`import jax, jax.numpy as jnp, jax.random as jr
import equinox as eqx

class SaveAt(eqx.Module):
    ts: jax.Array

class Func(eqx.Module):
    mlp: eqx.nn.MLP
    def __init__(self, key):
        self.mlp = eqx.nn.MLP(2, 2, 64, 2, key=key)

save = SaveAt(ts=jnp.linspace(0.0, 1.0, 100))
model = Func(jr.PRNGKey(0))
`, { device: 'a100-40gb', versions: {} });
  assert.deepEqual(r.models.map((m) => m.facts.name), ['Func']);
});
