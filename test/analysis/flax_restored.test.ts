// A Flax model whose parameters the program restores from a checkpoint and only applies (gemma's colabs, orbax
// restores, flax.serialization): it was "No model found". `apply` needs exactly the parameters init makes for the same
// input, so the model is sized by an init on apply's input: the count jax.eval_shape gives, the parameters held,
// no eager-init temporaries (nothing is drawn), and the forward of apply an unknown of the phase, not of the count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';

const MLP = `import flax.linen as nn


class MLP(nn.Module):
    width: int = 1024
    depth: int = 3

    @nn.compact
    def __call__(self, x):
        for _ in range(self.depth):
            x = nn.relu(nn.Dense(self.width)(x))
        return nn.Dense(10)(x)
`;

test('Module.apply with restored parameters: the model jax.eval_shape sizes, the phase a lower bound', async () => {
  const [truth] = runPythonJson<{ params: number | null; error?: string }[]>('build_count.py', [{ dir: process.cwd(), path: [], code: `${MLP}\nimport jax, jax.numpy as jnp\nparams = jax.eval_shape(MLP().init, jax.random.PRNGKey(0), jnp.ones((16, 512)))` }]);
  assert.equal(typeof truth.params, 'number', truth.error);
  const r = await analyze(`import pickle
import jax
import jax.numpy as jnp
${MLP}

model = MLP()
params = pickle.load(open("/ckpt/params.pkl", "rb"))
x = jnp.ones((16, 512))
logits = jax.jit(model.apply)({"params": params}, x)
`, { device: 'a100-40gb', versions: {} });
  assert.equal(r.models.length, 1);
  const m = r.models[0];
  assert.equal(m.facts.paramCount, truth.params);
  const init = m.estimate.phases[0];
  assert.equal(init.peakIsLowerBound, true);
  assert.equal(init.fits, null);
  // The parameters, float32, and no random samples: nothing is drawn when they are restored.
  assert.ok(!init.breakdown.some((b) => /eager init/.test(b.label)), JSON.stringify(init.breakdown.map((b) => b.label)));
  assert.ok(!r.findings.some((f) => f.code === 'OOM101' || /eager/i.test(f.message)), JSON.stringify(r.findings.map((f) => f.code)));
});

test('parameters made by init are not sized again at apply', async () => {
  const r = await analyze(`import jax
import jax.numpy as jnp
${MLP}

model = MLP()
x = jnp.ones((16, 512))
params = jax.jit(model.init)(jax.random.PRNGKey(0), x)
logits = model.apply(params, x)
`, { device: 'a100-40gb', versions: {} });
  assert.equal(r.models.length, 1);
});

// The same for Haiku: `hk.transform(f).apply(params, rng, x)` with parameters from a pickle (helper round 10).
test('Haiku apply with restored parameters: the model jax.eval_shape sizes; without_apply_rng and with_state shift the input', async () => {
  const F = `import haiku as hk
import jax
import jax.numpy as jnp

def forward(x):
    return hk.nets.MLP([256, 256, 10])(x)
`;
  const [truth] = runPythonJson<{ params: number | null; error?: string }[]>('build_count.py', [{ dir: process.cwd(), path: [], code: `${F}\nparams = jax.eval_shape(hk.transform(forward).init, jax.random.PRNGKey(0), jnp.ones((8, 128)))` }]);
  assert.equal(typeof truth.params, 'number', truth.error);
  for (const call of ['hk.transform(forward).apply(params, jax.random.PRNGKey(0), x)', 'hk.without_apply_rng(hk.transform(forward)).apply(params, x)']) {
    const r = await analyze(`import pickle
${F}
params = pickle.load(open("/ckpt/p.pkl", "rb"))
x = jnp.ones((8, 128))
out = ${call}
`, { device: 'a100-40gb', versions: {} });
    assert.deepEqual(r.models.map((m) => m.facts.paramCount), [truth.params], call);
    assert.equal(r.models[0].estimate.phases[0].peakIsLowerBound, true);
  }
});

// `@hk.transform` as a decorator (haiku's own examples: `@hk.transform def loss_fn(data): ...` then
// `loss_fn.init(rng, data)` under jax.jit): the decorator was not applied, so `loss_fn.init` was nothing and the
// program had "No model found". The count jax.eval_shape gives.
test('@hk.transform as a decorator makes the Transformed its init sizes', async () => {
  const F = `import haiku as hk
import jax
import jax.numpy as jnp

@hk.transform
def forward(x):
    return hk.nets.MLP([256, 10])(x)
`;
  const [truth] = runPythonJson<{ params: number | null; error?: string }[]>('build_count.py', [{ dir: process.cwd(), path: [], code: `${F}\nparams = jax.eval_shape(forward.init, jax.random.PRNGKey(0), jnp.ones((4, 9)))` }]);
  const r = await analyze(`${F}
@jax.jit
def init(rng, data):
    return forward.init(rng, data)

params = init(jax.random.PRNGKey(0), jnp.ones((4, 9)))
`, { device: 'a100-40gb', versions: {} });
  assert.deepEqual(r.models.map((m) => m.facts.paramCount), [truth.params]);
});
