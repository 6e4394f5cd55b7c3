// Three evaluator gaps a diffusion training script hit at once (a cosine noise schedule registered as buffers, batches
// from an endless generator):
// - math.pi / math.e / math.inf (and numpy's) are values; `x * math.pi` was an unknown, so every buffer derived from it was;
// - torch.linspace / torch.logspace make a 1-D tensor of `steps` items (torch docs), they were not catalogued, nor were
//   the Tensor methods clamp / clip / log / cos … (`x.clamp(min=1e-20)`);
// - calling a generator function ran its whole body: `while True: for x in loader: yield x` never ended and used up
//   the analysis budget, so the training loop after it was never reached. A generator now stands for items like its
//   first: `next(gen)` gives it, and a bounded training loop over the generator takes it at each step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

async function model(src: string, name: string) {
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === name);
  assert.ok(m, `model ${name} not found; unknowns ${JSON.stringify(r.unknowns)}`);
  return { m, r };
}

test('math and numpy constants are numbers', async () => {
  // int(2 * pi) = 6, int(e * 3) = 8, int(tau) = 6: Linear(6, 8) + Linear(6, 6) = 6·8 + 8 + 6·6 + 6 = 98 parameters.
  const { m } = await model(`
import math
from math import e
import numpy as np
import torch.nn as nn

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(int(2 * math.pi), int(e * 3))
        self.b = nn.Linear(int(np.pi * 2), int(math.tau))

m = M()
`, 'M');
  assert.equal(m.facts.paramCount, 98);
});

test('a cosine schedule built from torch.linspace and math.pi is a known buffer', async () => {
  // 1001 float64 steps; alphas_cumprod[1:] / alphas_cumprod[:-1] has 1000; registered as float32: 1000 · 4 = 4000 B
  // each (checked with torch 2.13: cosine_beta_schedule(1000).shape == (1000,)).
  const { m } = await model(`
import math
import torch
import torch.nn as nn

def cosine_beta_schedule(timesteps, s = 0.008):
    steps = timesteps + 1
    x = torch.linspace(0, timesteps, steps, dtype = torch.float64)
    alphas_cumprod = torch.cos(((x / timesteps) + s) / (1 + s) * math.pi * 0.5) ** 2
    alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
    betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
    return torch.clip(betas, 0, 0.999)

class Diffusion(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(16, 16)
        betas = cosine_beta_schedule(1000)
        self.register_buffer('betas', betas.to(torch.float32))
        self.register_buffer('alphas_cumprod', torch.cumprod(1. - betas, dim=0).to(torch.float32))
        self.register_buffer('log_betas', torch.log(betas.clamp(min = 1e-20)).to(torch.float32))
        self.register_buffer('clipped', betas.clip(0, 0.5).log().to(torch.float32))

d = Diffusion()
`, 'Diffusion');
  assert.deepEqual(m.facts.buffers.map((b) => [b.shape, b.dtype]), [[[1000], 'float32'], [[1000], 'float32'], [[1000], 'float32'], [[1000], 'float32']]);
  assert.ok(!(m.estimate.unknowns ?? []).some((u) => /buffer/.test(u.reason)), JSON.stringify(m.estimate.unknowns));
});

const LOOP = `
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

class Images(Dataset):
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        return torch.randn(3, 64, 64)

def cycle(dl):
    while True:
        for data in dl:
            yield data

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3 * 64 * 64, 10)
    def forward(self, x):
        return self.fc(x.flatten(1)).mean()

model = Net().cuda()
opt = torch.optim.Adam(model.parameters())
dl = cycle(DataLoader(Images(), batch_size=32))
for step in range(100):
    data = NEXT.cuda()
    loss = model(data)
    loss.backward()
    opt.step()
    opt.zero_grad()
`;

test('an endless generator of batches: the analysis reaches the training loop, next() gives a batch', async () => {
  const started = Date.now();
  const { m, r } = await model(LOOP.replace('NEXT', 'next(dl)'), 'Net');
  assert.ok(Date.now() - started < 20_000, 'no budget exhaustion');
  assert.ok(!r.unknowns.some((u) => /budget/.test(u.reason)), JSON.stringify(r.unknowns));
  const p = m.estimate.phases.find((x) => x.phase === 'training');
  assert.ok(p, 'a training phase');
  // The batch: 32 × 3 × 64 × 64 float32 (DataLoader stacks batch_size items).
  const batch = p.breakdown.filter((b) => /input|batch/.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  assert.equal(batch, 32 * 3 * 64 * 64 * 4);
});

test('a bounded loop over a generator takes its first item at each step', async () => {
  const src = LOOP.replace('for step in range(100):\n    data = NEXT.cuda()', 'for step, batch in zip(range(100), dl):\n    data = batch.cuda()');
  const { m } = await model(src, 'Net');
  assert.ok(m.estimate.phases.some((x) => x.phase === 'training'));
});

test('a generator that returns before yielding is empty', async () => {
  const { m } = await model(`
import torch.nn as nn

def nothing():
    return
    yield 1

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, len(list(nothing())) + 3)

m = M()
`, 'M');
  assert.equal(m.facts.paramCount, 4 * 3 + 3);
});
