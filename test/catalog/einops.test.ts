// einops output shapes against the real einops (test/python/einops_shapes.py),
// and the parameter-free Rearrange / Reduce layers inside models.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EINOPS_OPS } from '../../server/src/frameworks/einops/catalog';
import type { Args, ArrayValue } from '../../server/src/interp/catalog-types';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';

interface Case { fn: 'rearrange' | 'repeat' | 'reduce'; shape: number[]; pattern: string; reduction?: string; sizes?: Record<string, number>; list?: boolean }

const CASES: Case[] = [
  { fn: 'rearrange', shape: [2, 3, 4, 5], pattern: 'b h w c -> b (h w) c' },
  { fn: 'rearrange', shape: [2, 12, 5], pattern: 'b (h w) c -> b h w c', sizes: { h: 3 } },
  { fn: 'rearrange', shape: [2, 32, 32, 3], pattern: 'b (h p1) (w p2) c -> b (h w) (p1 p2 c)', sizes: { p1: 4, p2: 8 } },
  { fn: 'rearrange', shape: [2, 16, 24, 64], pattern: 'b n (h d) x -> b h n d x', sizes: { h: 4 } },
  { fn: 'rearrange', shape: [7, 2, 3, 4, 5], pattern: '... h w -> ... (h w)' },
  { fn: 'rearrange', shape: [2, 3, 4, 5], pattern: 'b ... c -> c (...) b' },
  { fn: 'rearrange', shape: [5, 3], pattern: 'a b -> b 1 a' },
  { fn: 'rearrange', shape: [4, 3, 8], pattern: 'n a b -> a (n b)', list: true },
  { fn: 'repeat', shape: [3, 4], pattern: 'h w -> h w c', sizes: { c: 3 } },
  { fn: 'repeat', shape: [3, 4], pattern: 'h w -> (h 2) (w k)', sizes: { k: 5 } },
  { fn: 'repeat', shape: [10], pattern: 'd -> b n d', sizes: { b: 2, n: 7 } },
  { fn: 'reduce', shape: [2, 3, 8, 8], pattern: 'b c h w -> b c', reduction: 'mean' },
  { fn: 'reduce', shape: [2, 3, 8, 8], pattern: 'b c (h h2) (w w2) -> b c h w', reduction: 'max', sizes: { h2: 2, w2: 2 } },
  { fn: 'reduce', shape: [2, 3, 8, 8], pattern: 'b c h w -> b c () ()', reduction: 'mean' },
  { fn: 'reduce', shape: [6, 5], pattern: '... d -> d', reduction: 'sum' },
  // einops rejects these: so must the analyzer.
  { fn: 'rearrange', shape: [2, 12], pattern: 'b (h w) -> b h w' },
  { fn: 'rearrange', shape: [2, 3, 4], pattern: 'a b -> b a' },
  { fn: 'rearrange', shape: [2, 10], pattern: 'b (h w) -> b h w', sizes: { h: 3 } },
];

test('rearrange / repeat / reduce: output shapes equal the real einops, and its errors stay unknown', () => {
  const truth = runPythonJson<(number[] | string)[]>('einops_shapes.py', { cases: CASES });
  assert.ok(truth.some((t) => typeof t === 'string') && truth.some((t) => Array.isArray(t)), 'both outcomes are exercised');
  CASES.forEach((c, i) => {
    const entry = EINOPS_OPS.find((o) => o.names[0] === `einops.${c.fn}`)!;
    const x: ArrayValue = { kind: 'array', shape: c.shape.slice(c.list ? 1 : 0), dtype: 'float32' };
    const args: Args = { tensor: c.list ? Array.from({ length: c.shape[0] }, () => x) : x, pattern: c.pattern, ...(c.reduction ? { reduction: c.reduction } : {}), ...(c.sizes ?? {}) };
    const r = entry.result(args);
    const want = truth[i];
    if (typeof want === 'string') assert.equal(r.kind, 'unknown', `${c.pattern}: einops says ${want}, got ${JSON.stringify(r)}`);
    else assert.deepEqual(r.kind === 'array' ? r.shape : r, want, `${c.fn} ${c.pattern} on ${c.shape}`);
  });
});

test('Rearrange / Reduce layers have no parameters and pass shapes through nn.Sequential', async () => {
  const r = await analyze(`import torch
from torch import nn
from einops.layers.torch import Rearrange, Reduce

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=4, stride=4),
            Rearrange('b c h w -> b (h w) c'),
            nn.LayerNorm(16),
            Reduce('b n c -> b c', 'mean'),
            nn.Linear(16, 10),
        )

    def forward(self, x):
        return self.net(x)

model = Net().cuda()
with torch.no_grad():
    y = model(torch.randn(2, 3, 32, 32, device="cuda"))
`, { device: 'a100-80gb', versions: {} });
  assert.equal(r.models.length, 1, r.models.map((m) => m.facts.name).join(', '));
  const m = r.models[0].facts;
  // Conv2d 3*16*4*4 + 16 = 784; LayerNorm 16 + 16 = 32; Linear 16*10 + 10 = 170; einops layers: none.
  assert.equal(m.paramCount, 784 + 32 + 170);
  assert.deepEqual(m.unknowns, []);
  // The forward runs through the einops layers: (2, 16, 8, 8) → (2, 64, 16) → (2, 16) → (2, 10), nothing unknown.
  const fwd = m.phases.find((p) => p.phase === 'inference');
  assert.ok(fwd, m.phases.map((p) => p.phase).join(', '));
  assert.deepEqual(fwd.unknowns, []);
  const shapes = fwd.events.flatMap((e) => (e.op === 'alloc' && e.tensor.role === 'activation' ? [e.tensor.shape.join('x')] : []));
  for (const s of ['2x64x16', '2x16', '2x10']) assert.ok(shapes.includes(s), `${s} in ${shapes.join(', ')}`);
});
