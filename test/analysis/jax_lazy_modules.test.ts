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

describe('flax: nn.Sequential', () => {
  it('applies its layers in order, a tuple output spread over the next layer\'s arguments', async () => {
    // Two: Dense(4) on 8 features: 8*4+4 = 36, returns (y, x); the lambda concatenates 4 + 8 = 12 features;
    // Dense(2) on 12: 12*2+2 = 26; total 62. (Without the tuple spread the lambda would get one argument.)
    const r = await params(`${FLAX}
class Two(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(4)(x), x

class M(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Sequential([Two(), lambda a, b: jnp.concatenate([a, b], axis=-1), nn.Dense(2)])(x)

v = M().init(jax.random.PRNGKey(0), jnp.ones((2, 8)))
`);
    assert.deepEqual(r, { count: 62, unknowns: [] });
  });
});

describe('haiku: containers, pooling and layer stacks', () => {
  it('hk.Reshape and hk.Flatten keep x.shape[:preserve_dims] (negative: all but that many trailing axes)', async () => {
    // Input (2, 4, 5, 6). Reshape((-1, 10), preserve_dims=2): (2, 4) + (30 / 10 = 3, 10) → Linear(2) on 10: 22.
    // Flatten(preserve_dims=-2) on (2, 4, 5, 6): (2, 4) + (30,) → Linear(3) on 30: 93. Flatten() → (2, 120):
    // Linear(1) on 120: 121. Total 22 + 93 + 121 = 236.
    const r = await params(`${HAIKU}
def net_fn(x):
    a = hk.Linear(2)(hk.Reshape((-1, 10), preserve_dims=2)(x))
    b = hk.Linear(3)(hk.Flatten(preserve_dims=-2)(x))
    c = hk.Linear(1)(hk.Flatten()(x))
    return a, b, c

net = hk.transform(net_fn)
p = net.init(jax.random.PRNGKey(0), jnp.ones((2, 4, 5, 6)))
`);
    assert.deepEqual(r, { count: 236, unknowns: [] });
  });

  it('hk.MaxPool module and hk.GroupNorm', async () => {
    // Conv2D(8, 3) SAME on 3 channels: 3*3*3*8+8 = 224; GroupNorm(2) on 8 channels: scale + offset = 16;
    // MaxPool(2, 2, VALID): 16 → 8; Flatten 8*8*8 = 512; Linear(10): 5,130. Total 224 + 16 + 5,130 = 5,370.
    const r = await params(`${HAIKU}
def net_fn(x):
    x = hk.Conv2D(8, 3)(x)
    x = hk.GroupNorm(2)(x)
    x = hk.MaxPool(2, 2, "VALID")(x)
    return hk.Linear(10)(hk.Flatten()(x))

net = hk.transform(net_fn)
p = net.init(jax.random.PRNGKey(0), jnp.ones((4, 16, 16, 3)))
`);
    assert.deepEqual(r, { count: 5370, unknowns: [] });
  });

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

describe('decorators that change what a def creates are applied', () => {
  it('@hk.layer_stack(n) on a def stacks its parameters, nested stacks multiply', async () => {
    // Block Linear 64→64 = 4,160, stacked 6 times = 24,960; head Linear(10) = 650; total 25,610
    // (ignoring the decorator would give 4,160 + 650 = 4,810).
    const r = await params(`${HAIKU}
def model_fn(x):
    @hk.layer_stack(6)
    def block(x):
        return x + jax.nn.gelu(hk.Linear(64)(x))
    x = block(x)
    return hk.Linear(10)(x)

m = hk.without_apply_rng(hk.transform(model_fn))
p = m.init(jax.random.PRNGKey(0), jnp.ones((4, 64)))
`);
    assert.deepEqual(r, { count: 25610, unknowns: [] });
    // @hk.layer_stack(2) over @hk.experimental.layer_stack(3): w (2, 3, 64, 64), b (2, 3, 64): 6 * 4,160 = 24,960.
    const n = await params(`${HAIKU}
def model_fn(x):
    @hk.layer_stack(2)
    @hk.experimental.layer_stack(3)
    def block(x):
        return hk.Linear(64)(x)
    return block(x)

m = hk.without_apply_rng(hk.transform(model_fn))
p = m.init(jax.random.PRNGKey(0), jnp.ones((4, 64)))
`);
    assert.deepEqual(n, { count: 24960, unknowns: [] });
  });

  it('@eqx.filter_vmap / @jax.vmap on a constructor def give every layer the batch axis', async () => {
    // eqx.nn.Linear(64, 64): 64*64+64 = 4,160 per key, 6 keys: 24,960 (ignoring the decorator: 4,160).
    for (const deco of ['@eqx.filter_vmap', '@jax.vmap', '@eqx.filter_vmap(in_axes=0)']) {
      const r = await params(`import jax
import equinox as eqx

class M(eqx.Module):
    layers: eqx.nn.Linear
    def __init__(self, key):
        ${deco}
        def make(k):
            return eqx.nn.Linear(64, 64, key=k)
        self.layers = make(jax.random.split(key, 6))

m = M(jax.random.PRNGKey(0))
`);
      assert.deepEqual(r, { count: 24960, unknowns: [] }, deco);
    }
  });
});

describe('flax parameter scopes', () => {
  it('auto-named submodules are Dense_0, Dense_1 (flax Module.__post_init__), explicit names kept', async () => {
    const r = await analyze(`${FLAX}
class M(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Dense(16)(x)
        x = nn.Dense(16, name="head")(x)
        return nn.Dense(4)(x)

v = M().init(jax.random.PRNGKey(0), jnp.ones((2, 8)))
`, { device: 'a100-80gb' });
    const labels = r.models[0].facts.params.map((p) => p.label).sort();
    assert.deepEqual(labels, ['Dense_0.bias', 'Dense_0.kernel', 'Dense_1.bias', 'Dense_1.kernel', 'head.bias', 'head.kernel']);
  });
});

describe('dataclass replace(): a copy with some fields changed', () => {
  it('flax.struct.dataclass .replace(**changes) keeps the other fields (flax/struct.py replace)', async () => {
    // vocab 1000, dim 16 kept, deterministic → no middle Dense. Embed 1000*16 = 16,000;
    // Dense(1000) on 16: 16*1000+1000 = 17,000; total 33,000 (the same count flax 0.10 gives in .venv).
    // Not honouring deterministic=True would add Dense(16) on 16: 272; not honouring vocab gives 8*16+16*8+8.
    const r = await params(`${FLAX}from flax import struct

@struct.dataclass
class Config:
    vocab: int = 8
    dim: int = 16
    deterministic: bool = False

class Net(nn.Module):
    config: Config
    @nn.compact
    def __call__(self, x):
        c = self.config
        y = nn.Embed(c.vocab, c.dim)(x)
        if not c.deterministic:
            y = nn.Dense(c.dim)(y)
        return nn.Dense(c.vocab)(y)

cfg = Config().replace(vocab=1000, deterministic=True)
v = Net(cfg).init(jax.random.PRNGKey(0), jnp.ones((2, 8), jnp.int32))
`);
    assert.deepEqual(r, { count: 33000, unknowns: [] });
  });

  it('dataclasses.replace reruns __post_init__; NamedTuple._replace changes the fields named', async () => {
    // replace(width=8): __post_init__ sets hidden = 4*8 = 32 (init=False fields are not copied).
    // Dense(32) on 8: 8*32+32 = 288; Dense(10, use_bias=False) on 32: 320; total 608 (as in .venv).
    const r = await params(`import dataclasses
from typing import NamedTuple
${FLAX}
@dataclasses.dataclass
class Sizes:
    width: int = 4
    hidden: int = dataclasses.field(init=False)
    def __post_init__(self):
        self.hidden = 4 * self.width

class Out(NamedTuple):
    classes: int = 2
    bias: bool = True

class M(nn.Module):
    sizes: Sizes
    out: Out
    @nn.compact
    def __call__(self, x):
        x = nn.Dense(self.sizes.hidden)(x)
        return nn.Dense(self.out.classes, use_bias=self.out.bias)(x)

s = dataclasses.replace(Sizes(), width=8)
o = Out()._replace(classes=10, bias=False)
v = M(s, o).init(jax.random.PRNGKey(0), jnp.ones((1, 8)))
`);
    assert.deepEqual(r, { count: 608, unknowns: [] });
  });

  it('a change that is not a field leaves the count unknown (Python raises TypeError)', async () => {
    const r = await params(`${FLAX}from flax import struct

@struct.dataclass
class Config:
    dim: int = 16

class Net(nn.Module):
    config: Config
    @nn.compact
    def __call__(self, x):
        return nn.Dense(self.config.dim)(x)

v = Net(Config().replace(width=3)).init(jax.random.PRNGKey(0), jnp.ones((1, 8)))
`);
    assert.equal(r.count, null);
    assert.ok(r.unknowns.length > 0);
  });
});
