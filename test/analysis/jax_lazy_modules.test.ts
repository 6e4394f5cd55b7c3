// Flax and Haiku modules whose parameters are created at the first call:
// shapes flow through activations, pooling, containers and layer stacks, so
// parameter counts come out exact. Every expected count is derived by hand
// in the comment next to it from the layer definitions the catalogue cites.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from '../../server/src/analysis/analyze';

async function params(src: string): Promise<{ count: number | null; unknowns: string[] }> {
  const r = await analyze(src, { device: 'a100-80gb' });
  assert.equal(r.models.length, 1, `one model expected, got ${r.models.map((m) => m.facts.name).join(', ')}`);
  const m = r.models[0];
  return { count: m.facts.paramCount, unknowns: m.facts.unknowns.map((u) => u.reason) };
}

const FLAX = 'import jax\nimport jax.numpy as jnp\nimport flax.linen as nn\n';
const HAIKU = 'import jax\nimport jax.numpy as jnp\nimport haiku as hk\n';

describe('flax: lazy layers sized through the forward pass', () => {
  it('nn.relu between Dense layers keeps the shape (flax re-exports jax.nn)', async () => {
    // Dense(16) on 8 features: 8*16+16 = 144; Dense(4) on 16: 16*4+4 = 68; total 212.
    const r = await params(`${FLAX}
class M(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(4)(nn.relu(nn.Dense(16)(x)))

v = M().init(jax.random.PRNGKey(0), jnp.ones((2, 8)))
`);
    assert.deepEqual(r, { count: 212, unknowns: [] });
  });

  it('nn.avg_pool / nn.max_pool shrink the spatial axes (VALID floor((n-w)/s)+1, SAME ceil(n/s))', async () => {
    // Conv(32, 3x3) on 1 channel: 3*3*1*32+32 = 320. avg_pool 2x2 stride 2 VALID: 28 → 14.
    // max_pool 3x3 stride 2 SAME: 14 → ceil(14/2) = 7. Flatten 7*7*32 = 1,568; Dense(10): 1,568*10+10 = 15,690.
    // Total 320 + 15,690 = 16,010. (A wrong pooling rule would give a different Dense size.)
    const r = await params(`${FLAX}
class CNN(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Conv(32, (3, 3))(x)
        x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = nn.max_pool(x, (3, 3), strides=(2, 2), padding="SAME")
        x = x.reshape((x.shape[0], -1))
        return nn.Dense(10)(x)

v = CNN().init(jax.random.PRNGKey(0), jnp.ones((4, 28, 28, 1)))
`);
    assert.deepEqual(r, { count: 16010, unknowns: [] });
  });

  it('a submodule defined in setup() runs its own setup() when first called', async () => {
    // Enc.fc1 = Dense(500) on 784 features: 784*500+500 = 392,500; M.head = Dense(20) on 500: 500*20+20 = 10,020.
    const r = await params(`${FLAX}
class Enc(nn.Module):
    def setup(self):
        self.fc1 = nn.Dense(500)
    def __call__(self, x):
        return self.fc1(x)

class M(nn.Module):
    def setup(self):
        self.enc = Enc()
        self.head = nn.Dense(20)
    def __call__(self, x):
        return self.head(self.enc(x))

v = M().init(jax.random.PRNGKey(0), jnp.ones((128, 784)))
`);
    assert.deepEqual(r, { count: 402520, unknowns: [] });
  });
});

describe('haiku: containers, pooling and layer stacks', () => {
  it('hk.nets.MLP is Linear per output size with activations between', async () => {
    // 784→300: 235,500; 300→100: 30,100; 100→10: 1,010; total 266,610.
    const r = await params(`${HAIKU}
def forward(x):
    return hk.nets.MLP([300, 100, 10])(x)

net = hk.without_apply_rng(hk.transform(forward))
p = net.init(jax.random.PRNGKey(0), jnp.ones((8, 784)))
`);
    assert.deepEqual(r, { count: 266610, unknowns: [] });
  });

  it('hk.Sequential, hk.max_pool (int window: batch and channel axes untouched) and hk.Flatten', async () => {
    // Conv2D(16, 3) SAME on 1 channel: 3*3*1*16+16 = 160. max_pool(2, 2, VALID) → window (1,2,2,1): 28 → 14.
    // Flatten: 14*14*16 = 3,136; Linear(10): 3,136*10+10 = 31,370. Total 31,530.
    const r = await params(`${HAIKU}
def net_fn(x):
    body = hk.Sequential([
        hk.Conv2D(16, kernel_shape=3),
        jax.nn.relu,
        lambda y: hk.max_pool(y, window_shape=2, strides=2, padding="VALID"),
        hk.Flatten(),
        hk.Linear(10),
    ])
    return body(x)

net = hk.transform(net_fn)
p = net.init(jax.random.PRNGKey(0), jnp.ones((8, 28, 28, 1)))
`);
    assert.deepEqual(r, { count: 31530, unknowns: [] });
  });

  it('hk.layer_stack(n) stacks every parameter of the block n times', async () => {
    // Block: Linear 64→64 = 4,160, stacked 6 times = 24,960; head Linear(10): 64*10+10 = 650; total 25,610.
    const r = await params(`${HAIKU}
def block(x):
    return x + jax.nn.gelu(hk.Linear(64)(x))

def model_fn(x):
    x = hk.layer_stack(6)(block)(x)
    return hk.Linear(10)(x)

m = hk.without_apply_rng(hk.transform(model_fn))
p = jax.jit(m.init)(jax.random.PRNGKey(0), jnp.ones((4, 64)))
`);
    assert.deepEqual(r, { count: 25610, unknowns: [] });
  });

  it('a pooling window that is not known leaves the count unknown with the reason', async () => {
    const r = await params(`${HAIKU}
import sys
def net_fn(x):
    y = hk.max_pool(x, window_shape=int(sys.argv[1]), strides=2, padding="VALID")
    return hk.Linear(10)(hk.Flatten()(y))

net = hk.transform(net_fn)
p = net.init(jax.random.PRNGKey(0), jnp.ones((8, 28, 28, 1)))
`);
    assert.equal(r.count, null);
    assert.ok(r.unknowns.length > 0);
  });
});
