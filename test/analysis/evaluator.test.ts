// The static evaluator on the variations real code uses: aliases, config
// styles, arithmetic, defaults across calls, loops, containers, tying,
// vmapped stacks, dtypes — and honest unknowns. Each expected count is
// derived in the comment next to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

async function model(src: string, name: string, device = 'a100-80gb') {
  const r = await analyze(src, { device });
  const m = r.models.find((x) => x.facts.name === name);
  assert.ok(m, `model ${name} not found; got ${r.models.map((x) => x.facts.name).join(', ')}; unknowns ${JSON.stringify(r.unknowns)}`);
  return m;
}

test('Llama FFN rounding with a dataclass config and an override', async () => {
  // hidden = int(2 * 4 * 5120 / 3) = 13653; 256 * ceil(13653 / 256) = 256 * 54 = 13824;
  // three bias-free Linear layers: 3 * 5120 * 13824 = 212,336,640.
  const m = await model(`
import torch.nn as nn
from dataclasses import dataclass
from typing import Optional

@dataclass
class ModelArgs:
    dim: int = 4096
    multiple_of: int = 256
    ffn_dim_multiplier: Optional[float] = None

class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden_dim: int, multiple_of: int, ffn_dim_multiplier: Optional[float]):
        super().__init__()
        hidden_dim = int(2 * hidden_dim / 3)
        if ffn_dim_multiplier is not None:
            hidden_dim = int(ffn_dim_multiplier * hidden_dim)
        hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

args = ModelArgs(dim=5120)
ff = FeedForward(args.dim, 4 * args.dim, args.multiple_of, args.ffn_dim_multiplier)
`, 'FeedForward');
  assert.equal(m.facts.paramCount, 212_336_640);
  // Built on the host; the load phase puts float32 weights on the device: 4 bytes each.
  assert.equal(m.estimate.phases[0].peakBytes, 212_336_640 * 4);
});

test('import styles: from equinox import nn, import equinox.nn as enn', async () => {
  // Linear(3, 4): 3*4 weights + 4 biases = 16.
  // A bare layer is not a model: each sits in a module of the program's own.
  const wrap = (imp: string, ctor: string) => `import jax\nimport equinox as eqx\n${imp}\nclass M(eqx.Module):\n    lin: object\n    def __init__(self, key):\n        self.lin = ${ctor}\nm = M(jax.random.PRNGKey(0))\n`;
  const a = await model(wrap('from equinox import nn', 'nn.Linear(3, 4, key=key)'), 'M');
  assert.equal(a.facts.paramCount, 16);
  const b = await model(wrap('import equinox.nn as enn', 'enn.Linear(3, 4, use_bias=False, key=key)'), 'M');
  assert.equal(b.facts.paramCount, 12);
});

test('NamedTuple config and keyword defaults across a factory function', async () => {
  // MLP(4, 2, width=64, depth=3): 4*64+64 + 2*(64*64+64) + 64*2+2 = 320 + 8320 + 130 = 8770.
  const m = await model(`
from typing import NamedTuple
import equinox as eqx
import jax

class Hyper(NamedTuple):
    width: int = 32
    depth: int = 3

def make(h, *, key, out=2):
    return eqx.nn.MLP(4, out, h.width, h.depth, key=key)

net = make(Hyper(width=64), key=jax.random.PRNGKey(0))
`, 'MLP');
  assert.equal(m.facts.paramCount, 8770);
});

test('class-attribute config, ModuleList comprehension, conditional layer', async () => {
  // 3 Linear(10, 10, bias=False) = 300, plus Linear(10, 1) = 11, since n=3 > 2: 311.
  const m = await model(`
import torch
from torch import nn

class Cfg:
    n = 3
    bias = False

class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(10, 10, bias=cfg.bias) for _ in range(cfg.n)])
        if cfg.n > 2:
            self.extra = nn.Linear(10, 1)
        else:
            self.extra = nn.Linear(10, 100)

net = Net(Cfg())
`, 'Net');
  assert.equal(m.facts.paramCount, 311);
});

test('weight tying is counted once; buffers are separate', async () => {
  // Embedding(100, 16) = 1600 shared with the head; LayerNorm(16) = 32; BatchNorm1d(16) = 32 params + 16 + 16 + 1 buffers.
  const m = await model(`
import torch.nn as nn

class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.norm = nn.LayerNorm(16)
        self.bn = nn.BatchNorm1d(16)
        self.head = nn.Linear(16, 100, bias=False)
        self.head.weight = self.emb.weight

t = Tied()
`, 'Tied');
  assert.equal(m.facts.paramCount, 1600 + 32 + 32);
  assert.equal(m.facts.buffers.reduce((a, b) => a + b.shape.reduce((x, y) => x * y, 1), 0), 33);
});

test('Sequential from a list built in a loop, with **kwargs', async () => {
  // Linear(8,16)+Linear(16,16)+Linear(16,4) = 144 + 272 + 68 = 484.
  const m = await model(`
import torch.nn as nn

def mlp(sizes, **kwargs):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1], **kwargs))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)

class Policy(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.net = mlp([8, hidden, hidden, 4], bias=True)

p = Policy()
`, 'Policy');
  assert.equal(m.facts.paramCount, 484);
});

test('sorted(reverse=, key=) and set operations decide sizes', async () => {
  // widths = sorted({64, 256, 128} | {32}, reverse=True) = [256, 128, 64, 32]: Linear(256,128) + Linear(128,64) +
  // Linear(64,32) = 32,896 + 8,256 + 2,080 = 43,232. names sorted by length: ["up", "mid", "down"] → the last
  // layer is Linear(32, len("down")) = 32·4 + 4 = 132. Total 43,364. (Before: reverse= was ignored, giving
  // Linear(32,64) first and a different count.)
  const m = await model(`
import torch.nn as nn

class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        widths = sorted({64, 256, 128} | {32}, reverse=True)
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(widths, widths[1:])])
        names = sorted(["down", "up", "mid"], key=len)
        drop = {"mid", "gone"}
        drop.discard("gone")
        kept = set(names) - drop
        self.last = nn.Linear(widths[-1], len(names[-1]) * len(kept) // 2)

t = Tower()
`, 'Tower');
  assert.equal(m.facts.paramCount, 43_364);
});

test('try/except: a raise the analysis knows of runs the handler that catches it; else and finally run; outside a try the value is unknown', async () => {
  // parse("256") = 256 and parse("wide") = "wide" (literal_eval of a name raises ValueError, the handler returns the
  // text); int("2.5") raises ValueError → n = 3 (else: skipped); float("0.5") = 0.5 → else: extra = 1.0;
  // finally: pad = 8; KeyError is a LookupError → depth = 2. Layers: 3·2 = 6 × Linear(256, 256) = 6 · 65,792 =
  // 394,752; head Linear(256, 8·2·1) = 4,112. Total 398,864.
  const m = await model(`
import torch.nn as nn
from ast import literal_eval

def parse(v):
    try:
        return literal_eval(v)
    except (ValueError, SyntaxError):
        return v

class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        width = parse("256")
        kind = parse("wide")
        try:
            n = int("2.5")
        except ValueError:
            n = 3
        else:
            n = 100
        try:
            extra = float("0.5")
        except ValueError:
            extra = 0.0
        else:
            extra = extra * 2
        finally:
            pad = 8
        try:
            raise KeyError("x")
        except LookupError as err:
            depth = 2
        self.layers = nn.ModuleList([nn.Linear(width, width) for _ in range(n * depth)])
        self.head = nn.Linear(width, pad * (2 if kind == "wide" else 1) * int(extra))

s = Stack()
`, 'Stack');
  assert.equal(m.facts.paramCount, 398_864);
  // The same parse outside a try: int("2.5") raises, so the width is unknown, never 2.
  const r = await analyze(`
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(int("2.5"), 4)

n = Net()
`, { device: 'a100-80gb' });
  const net = r.models.find((x) => x.facts.name === 'Net');
  assert.ok(net);
  assert.equal(net.facts.paramCount, null);
  assert.ok(net.facts.unknowns.length > 0);
});

test('a name a namespace does not hold is unknown, never a true condition; vars() of an instance gives its fields', async () => {
  // Written for this test. cfg has no "wide": `cfg.wide` was a bound dict method, which reads as true, so the
  // wide branch was taken with confidence. Now the width is unknown.
  const r = await analyze(`
import types
import torch.nn as nn

class Sizes:
    def __init__(self):
        self.width = 64

cfg = types.SimpleNamespace(**vars(Sizes()))

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        w = cfg.width * 4 if cfg.wide else cfg.width
        self.fc = nn.Linear(w, w)

net = Net()
`, { device: 'a100-80gb' });
  const m = r.models.find((x) => x.facts.name === 'Net');
  assert.ok(m);
  assert.equal(m.facts.paramCount, null);
  // With the name set, vars() carried width = 64 through the namespace: Linear(64, 64) = 4,160.
  const m2 = await model(`
import types
import torch.nn as nn

class Sizes:
    def __init__(self):
        self.width = 64
        self.wide = False

cfg = types.SimpleNamespace(**vars(Sizes()))

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        w = cfg.width * 4 if cfg.wide else cfg.width
        self.fc = nn.Linear(w, w)

net = Net()
`, 'Net');
  assert.equal(m2.facts.paramCount, 4_160);
});

test('vmapped stack: leading axis = number of keys', async () => {
  // 5 stacked Linear(8, 8): 5 * (64 + 8) = 360, all float32 on device 0.
  const m = await model(`
import equinox as eqx
import jax

class Stack(eqx.Module):
    layers: eqx.nn.Linear
    def __init__(self, key):
        self.layers = eqx.filter_vmap(lambda k: eqx.nn.Linear(8, 8, key=k))(jax.random.split(key, 5))

s = Stack(jax.random.PRNGKey(0))
`, 'Stack');
  assert.equal(m.facts.paramCount, 360);
  assert.deepEqual(m.facts.params.map((p) => p.shape).sort(), [[5, 8], [5, 8, 8]]);
});

test('dtype through dtype= and astype', async () => {
  // Linear(1024, 1024, dtype=bfloat16): (1024*1024 + 1024) * 2 bytes = 2,099,200.
  const m = await model(`
import equinox as eqx
import jax
import jax.numpy as jnp
class M(eqx.Module):
    lin: eqx.nn.Linear
    def __init__(self, key):
        self.lin = eqx.nn.Linear(1024, 1024, dtype=jnp.bfloat16, key=key)
m = M(jax.random.PRNGKey(0))
`, 'M');
  assert.equal(m.estimate.paramBytes, 2_099_200);
  assert.deepEqual(Object.keys(m.estimate.bytesByDtype), ['bfloat16']);
});

test('an unresolvable size is unknown with its reason and place, never a guess', async () => {
  const r = await analyze(`
import os
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        n = int(os.environ["WIDTH"])
        self.fc = nn.Linear(n, n)

net = Net()
`, { device: 'a100-80gb' });
  const m = r.models.find((x) => x.facts.name === 'Net');
  assert.ok(m);
  assert.equal(m.facts.paramCount, null);
  assert.ok(m.facts.unknowns.length > 0);
  assert.ok(m.facts.unknowns.some((u) => u.span !== undefined), 'unknown carries its location');
});

test('an undecidable condition makes the count unknown', async () => {
  const r = await analyze(`
import sys
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        if len(sys.argv) > 1:
            self.fc = nn.Linear(10, 10)

net = Net()
`, { device: 'a100-80gb' });
  const m = r.models.find((x) => x.facts.name === 'Net');
  assert.ok(m);
  assert.equal(m.facts.paramCount, null);
  assert.match(m.facts.unknowns.map((u) => u.reason).join(' '), /condition/);
});

test('bad input: empty, syntax errors, binary, huge, absurd shapes, unknown device', async () => {
  const empty = await analyze('', { device: 'a100-80gb' });
  assert.equal(empty.models.length, 0);

  const broken = await analyze('import torch.nn as nn\nlin = nn.Sequential(nn.Linear(10, 10), nn.ReLU())\nclass X(\n  def f(self\nother = nn.Linear(4,\n', { device: 'a100-80gb' });
  assert.ok(broken.unknowns.some((u) => /syntax/.test(u.reason)));
  const lin = broken.models.find((m) => m.facts.name === 'Sequential');
  assert.ok(lin, 'the part that parses is still analysed');
  assert.equal(lin.facts.paramCount, 110);

  const binary = await analyze('\u0000\u0001ELF', { device: 'a100-80gb' });
  assert.match(binary.unknowns[0].reason, /binary/);

  const lines = ['import torch.nn as nn', 'class Big(nn.Module):', '    def __init__(self):', '        super().__init__()'];
  for (let i = 0; i < 50_000; i++) lines.push(`        self.l${i} = nn.Linear(4, 4)`);
  lines.push('big = Big()');
  const huge = await analyze(lines.join('\n'), { device: 'a100-80gb' });
  const b = huge.models.find((m) => m.facts.name === 'Big');
  assert.ok(b ? b.facts.paramCount === 50_000 * 20 || b.facts.paramCount === null : huge.unknowns.length > 0, 'a 50,000-line file gives a result or a clear unknown');

  const absurd = await analyze('import torch.nn as nn\nlin = nn.Linear(10**12, 10**12)\n', { device: 'a100-80gb' });
  const a = absurd.models.find((m) => m.facts.name === 'Linear');
  assert.ok(!a || a.facts.paramCount === null, 'no confident number for 10^24 parameters');

  const dev = await analyze('x = 1\n', { device: 'quantum-9000' });
  assert.match(dev.unknowns[0].reason, /a100-40gb/);
});
