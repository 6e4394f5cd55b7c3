// A training call the analysis reaches but cannot follow (a loss computed from a batch of unknown shape, an
// optimizer from a package it does not model) still gives the models it trains a training phase: a lower bound
// with an unknown that names the call. Before, such a program reported its load phase only and "All checks
// passed" (milesial/Pytorch-UNet train.py, docs/accuracy.md): a training run read as if it did not exist.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { analyze } from '../../server/src/analysis/analyze';

const net = `import torch
import torch.nn as nn
from lion_pytorch import Lion
from mydata import make_loader


class Net(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1 = nn.Linear(d, 4096)
        self.fc2 = nn.Linear(4096, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

`;

const phase = (m: { estimate: { phases: { phase: string }[] } }, name: string) => m.estimate.phases.find((p) => p.phase === name) as
  | { phase: string; peakBytes: number | null; peakIsLowerBound: boolean; fits: boolean | null; unknowns?: { what: string; reason: string }[] } | undefined;

it('one model, a loss and an optimizer the analysis cannot follow: a training phase "≥", never no phase', async () => {
  const r = await analyze(net + `model = Net(1024).cuda()
opt = Lion(model.parameters(), lr=1e-4)
for x, y in make_loader():
    loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
    loss.backward()
    opt.step()
    opt.zero_grad()
`, { device: 't4' });
  assert.equal(r.models.length, 1);
  const t = phase(r.models[0], 'training');
  assert.ok(t, 'a training phase');
  assert.equal(t.peakIsLowerBound, true);
  assert.notEqual(t.fits, true);
  // At least the weights (1024·4096 + 4096 + 4096·10 + 10 parameters, float32).
  assert.ok((t.peakBytes ?? 0) >= 4 * (1024 * 4096 + 4096 + 4096 * 10 + 10));
  const all = (t.unknowns ?? []).map((u) => u.reason).join('\n');
  assert.match(all, /`loss\.backward\(\)` trains Net, but the analysis could not follow it/);
});

it('two models trained in one loop both get the phase; a model the loop does not name gets none', async () => {
  const r = await analyze(net + `gen = Net(128).cuda()
disc = Net(256).cuda()
probe = Net(64).cuda()
for x, y in make_loader():
    fake = gen(x)
    loss = disc(fake).mean()
    loss.backward()
`, { device: 't4' });
  assert.equal(r.models.length, 3);
  const counts = r.models.map((m) => [m.estimate.paramCount, !!phase(m, 'training')] as const).sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0));
  // probe (64 inputs) is smallest, then gen (128), then disc (256).
  assert.deepEqual(counts.map((c) => c[1]), [false, true, true]);
});

it('the model whose forward the loop runs trains, even when its name is rebound later (word_language_model)', async () => {
  const r = await analyze(net + `model = Net(1024).cuda()
probe = Net(64).cuda()
criterion = nn.NLLLoss()


def train():
    for x, y in make_loader():
        loss = criterion(model(x), y)
        loss.backward()
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-0.1)


train()
model = torch.load("model.pt")
`, { device: 't4' });
  const byIn = r.models.map((m) => [m.estimate.paramCount, !!phase(m, 'training')] as const).sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0));
  // probe (64 inputs) first, then the trained model (1024).
  assert.deepEqual(byIn.map((c) => c[1]), [false, true]);
});

it('a model the loop names but no optimizer trains (a target network) gets no training phase', async () => {
  const r = await analyze(net + `online = Net(512).cuda()
target = Net(512).cuda()
opt = torch.optim.Adam(online.parameters(), lr=1e-4)
for x, y in make_loader():
    with torch.no_grad():
        t = target(x).max(1)[0]
    loss = ((online(x).max(1)[0] - t) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
`, { device: 't4' });
  assert.equal(r.models.length, 2);
  // Both have 512 inputs; the first built is the online network.
  assert.ok(phase(r.models[0], 'training'), 'the online network trains');
  assert.equal(phase(r.models[1], 'training'), undefined);
});

it('a program without any training call gets no training phase', async () => {
  const r = await analyze(net + `model = Net(1024).cuda()
for x in make_loader():
    out = model(x)
`, { device: 't4' });
  assert.equal(phase(r.models[0], 'training'), undefined);
});
