// An early exit under a condition oomlens cannot decide (`if len(ds) == 0: print(...); return`, `if not files:
// sys.exit(1)`) was taken, and the function or program ended there: every model built after the guard vanished with
// no unknown ("No model found" on kohya-ss/sd-scripts, docs/accuracy.md). A branch that only leaves is now taken
// as not leaving, like one that only raises; a branch that does more than leave is still taken.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const body = `    model = nn.Sequential(nn.Linear(1024, 1024), nn.Linear(1024, 10)).cuda()
    opt = torch.optim.AdamW(model.parameters())
    for _ in range(3):
        model(torch.randn(8, 1024, device="cuda")).sum().backward()
        opt.step()
        opt.zero_grad()
`;

for (const [label, guard] of [
  ['a bare return after a message', '    if len(files) == 0:\n        print("no data")\n        return\n'],
  ['return None', '    if not files:\n        return None\n'],
  ['sys.exit', '    if len(files) < 1:\n        logging.warning("empty")\n        sys.exit(1)\n'],
] as const) {
  test(`an undecided guard that only leaves (${label}) does not end the analysis`, async () => {
    const r = await analyze(`import logging
import os
import sys
import torch
import torch.nn as nn

def train(root):
    files = [f for f in os.listdir(root) if f.endswith(".png")]
${guard}${body}
train(sys.argv[1])
`, { device: 't4', versions: {} });
    assert.equal(r.models.length, 1);
    assert.equal(r.models[0].facts.paramCount, 1024 * 1024 + 1024 + 1024 * 10 + 10);
    assert.ok(r.models[0].estimate.phases.some((p) => p.phase === 'training'));
  });
}

test('an undecided branch that does more than leave is still taken', async () => {
  const r = await analyze(`import sys
import torch.nn as nn

def build(kind):
    if kind == "small":
        m = nn.Sequential(nn.Linear(16, 16), nn.Linear(16, 16))
        return m
    return nn.Sequential(nn.Linear(1024, 1024), nn.Linear(1024, 1024))

model = build(sys.argv[1]).cuda()
`, { device: 't4', versions: {} });
  assert.equal(r.models.length, 1);
  assert.equal(r.models[0].facts.paramCount, 2 * (16 * 16 + 16));
});

test('an undecided branch that only writes elements of existing tensors changes no size: the count stays exact (glow-tts, WaveGlow)', async () => {
  const src = `import torch, torch.nn as nn


class Invertible1x1Conv(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv1d(c, c, kernel_size=1, bias=False)
        W = torch.linalg.qr(torch.randn(c, c))[0]
        if torch.det(W) < 0:
            W[:, 0] = -1 * W[:, 0]
        self.conv.weight.data = W.view(c, c, 1)


model = nn.Sequential(*[Invertible1x1Conv(512) for _ in range(12)]).cuda()
`;
  const r = await analyze(src, { device: 'v100-16gb', versions: {} });
  assert.equal(r.models[0].facts.paramCount, 12 * 512 * 512);
  // A branch that rebinds a name (a new tensor of another shape) stays an unknown.
  const rebinding = src.replace('W[:, 0] = -1 * W[:, 0]', 'W = torch.randn(c, 2 * c)');
  const u = await analyze(rebinding, { device: 'v100-16gb', versions: {} });
  assert.equal(u.models[0].facts.paramCount, null);
});

test('an undecided guard that only skips the iteration (`continue`) is taken as not skipping: a federated round trains', async () => {
  const src = `import random
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(1024, 1024), nn.Linear(1024, 10)).cuda()
opt = torch.optim.AdamW(model.parameters())
losses = [[] for _ in range(20)]
for rnd in range(3):
    picked = random.sample(range(20), 2)
    for client in range(20):
        if client not in picked:
            losses[client].append(-1)
            continue
        model(torch.randn(8, 1024, device="cuda")).sum().backward()
        opt.step()
        opt.zero_grad()
`;
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  assert.ok(r.models[0].estimate.phases.some((p) => p.phase === 'training'), 'a training phase');
});
