// Plain-JAX parameter init (issue 13): a params tree built from jax.random samplers and jax.nn.initializers by
// an init function, eager and under jax.jit, with the exact peaks derived from jax/_src/nn/initializers.py
// (jax 0.10.2): an initializer is the jitted sampler's output, then an eager multiply by the scale, so the
// sample and the scaled copy are alive together until it returns; under jit XLA fuses them and only the
// outputs are made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';

const fixture = readFileSync(join(__dirname, '..', 'rules', 'fixtures', 'oom104_plain_jax_eager_init.py'), 'utf8');
// layers: 4 × (2048 × 8192 × 4 B + 8192 × 4 B); embed: 1,000,000 × 2048 × 4 B.
const LAYERS = 4 * (2048 * 8192 * 4 + 8192 * 4);
const EMBED = 1_000_000 * 2048 * 4;
const PARAMS = LAYERS + EMBED; // 8,460,566,528 B

async function initOf(text: string) {
  const r = await analyze(text, { device: 'a100-40gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === 'params');
  assert.ok(m, `no params model (models: ${r.models.map((x) => x.facts.name).join(', ')})`);
  return { r, m, init: m.estimate.phases.find((p) => p.phase === 'init')! };
}

test('eager plain-JAX init: parameters exact, peak = parameters made so far + the table\'s sample + its scaled copy', async () => {
  const { r, m, init } = await initOf(fixture);
  assert.equal(m.estimate.paramBytes, PARAMS);
  assert.equal(init.peakBytes, LAYERS + 2 * EMBED); // 16,652,566,528 B
  assert.ok(r.findings.some((f) => f.code === 'OOM104'));
});

test('the same init under jax.jit (static sizes): only the outputs, peak = parameters', async () => {
  const { r, m, init } = await initOf(fixture.replace('params = init_params(', 'params = jax.jit(init_params, static_argnums=(1, 2, 3))('));
  assert.equal(m.estimate.paramBytes, PARAMS);
  assert.equal(init.peakBytes, PARAMS);
  assert.ok(!r.findings.some((f) => f.code === 'OOM104'));
});

test('a user-written draw and scale in its own statement: the sample dies with the statement, as in CPython', async () => {
  const text = fixture.replace('embed = jax.nn.initializers.normal(0.02)(k_embed, (vocab, dim))', 'embed = jax.random.normal(k_embed, (vocab, dim)) * 0.02');
  const { init } = await initOf(text);
  assert.equal(init.peakBytes, LAYERS + 2 * EMBED);
});

test('raw draws bound as a batch are data, not a model', async () => {
  const text = [
    'import jax', '', '',
    'def make_batch(key):', '    kx, kn = jax.random.split(key)',
    '    return {"x": jax.random.normal(kx, (4096, 784)), "noise": jax.random.normal(kn, (4096, 784)) * 0.1}', '', '',
    'batch = make_batch(jax.random.PRNGKey(1))', 'x = jax.random.normal(jax.random.PRNGKey(2), (8, 784)) * 0.5', '',
  ].join('\n');
  const r = await analyze(text, { device: 'a100-40gb', versions: {} });
  assert.deepEqual(r.models.map((m) => m.facts.name), []);
});

// ayaka14732/llama-2-jax-style hand-written models draw their weights raw (`rand.normal(k, shape)`) in a function the
// program calls its parameters' init: "No model found" before (docs/accuracy.md, OOM reports replayed).
test('raw draws the program names parameters (params = init_params(key)) are a model', async () => {
  const text = [
    'import jax', '', '',
    'def init_params(key):', '    k1, k2 = jax.random.split(key)',
    '    return {"w1": jax.random.normal(k1, (1024, 4096)), "w2": jax.random.normal(k2, (4096, 1024))}', '', '',
    'params = init_params(jax.random.PRNGKey(0))', '',
  ].join('\n');
  const r = await analyze(text, { device: 'a100-40gb', versions: {} });
  assert.deepEqual(r.models.map((m) => [m.facts.name, m.facts.paramCount]), [['params', 2 * 1024 * 4096]]);
});

test('an initializer that is not modelled (orthogonal: QR of a normal draw) leaves the size unknown, never a number', async () => {
  const text = fixture.replace('jax.nn.initializers.lecun_normal()(k, (dim, 4 * dim))', 'jax.nn.initializers.orthogonal()(k, (dim, 4 * dim))');
  const r = await analyze(text, { device: 'a100-40gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === 'params');
  const init = m?.estimate.phases.find((p) => p.phase === 'init');
  // The tree holds a leaf of unknown size: the parameters are unknown, and OOM104 does not claim a saving.
  assert.ok(m, 'the tree is still a model');
  assert.equal(m.estimate.paramBytes, null);
  assert.ok(init?.peakBytes === null || init?.peakIsLowerBound, `orthogonal init gave a confident init peak ${init?.peakBytes}`);
  assert.ok(!r.findings.some((f) => f.code === 'OOM104'), 'OOM104 claims a saving over unknown parameters');
});

test('a draw passed inline to a training step is its input: the step is traced as without it', async () => {
  const text = [
    'import equinox as eqx', 'import jax', 'import jax.numpy as jnp', 'import optax', '', '',
    'def loss_fn(model, x):', '    return jnp.mean(jax.vmap(model)(x) ** 2)', '', '',
    'model = eqx.nn.MLP(784, 10, 4096, 4, key=jax.random.PRNGKey(0))',
    'opt = optax.adam(1e-3)', 'opt_state = opt.init(eqx.filter(model, eqx.is_array))',
    'for step in range(10):',
    '    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, jax.random.normal(jax.random.PRNGKey(step), (512, 784)))',
    '    updates, opt_state = opt.update(grads, opt_state, model)',
    '    model = eqx.apply_updates(model, updates)', '',
  ].join('\n');
  const r = await analyze(text, { device: 'a100-40gb', versions: {} });
  assert.deepEqual(r.models.map((m) => m.facts.name), ['MLP']);
  const training = r.models[0].estimate.phases.find((p) => p.phase === 'training');
  assert.ok(training?.peakBytes != null && training.fits !== null, 'the training step is known');
});

test('a vmapped init keeps the stack: batch axis counted once', async () => {
  const text = [
    'import jax', 'import jax.numpy as jnp', '', '',
    'def init_layer(key):', '    return {"w": jax.nn.initializers.lecun_normal()(key, (2048, 2048)), "b": jnp.zeros((2048,))}', '', '',
    'def init_params(key):', '    k_embed, k_layers = jax.random.split(key)',
    '    layers = jax.vmap(init_layer)(jax.random.split(k_layers, 4))',
    '    embed = jax.random.normal(k_embed, (1_000_000, 2048)) * 0.02',
    '    return {"embed": embed, "layers": layers}', '', '',
    'params = init_params(jax.random.PRNGKey(0))', '',
  ].join('\n');
  const { init, m } = await initOf(text);
  const layers = 4 * (2048 * 2048 * 4 + 2048 * 4);
  assert.equal(m.estimate.paramBytes, layers + EMBED);
  assert.equal(init.peakBytes, layers + 2 * EMBED);
});
