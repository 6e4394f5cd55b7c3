// A frozen backbone under a trainable head (transfer learning, linear probing: facebookresearch/simsiam
// main_lincls.py; the PyTorch tutorial's `for p in model.parameters(): p.requires_grad = False`): autograd records
// no op whose inputs and parameters all have requires_grad=False, so the backbone saves nothing for the backward.
// Before, every op's tensors were counted as saved: a ResNet-50 linear probe at batch 512 read "training 44.5 GB,
// over by 10.9 GB" on a 32 GB V100 (4.2 MB saved, measured with saved_tensors_hooks). What the frozen layers make
// and free while the forward runs is not modelled yet, so the phase is a lower bound (a frozen ResNet-50 at
// batch 32: 472 MB measured by test/truth's tracker).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { analyze } from '../../server/src/analysis/analyze';

const program = (freeze: string) => `import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


model = Net().cuda()
${freeze}
opt = torch.optim.SGD(model.fc.parameters(), lr=0.1)
x = torch.randn(64, 3, 128, 128, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
`;

const saved = (r: Awaited<ReturnType<typeof analyze>>) => {
  const t = r.models[0].estimate.phases.find((p) => p.phase === 'training')!;
  const unknowns = r.models[0].facts.phases.find((p) => p.phase === 'training')!.unknowns;
  return { t, unknowns, bytes: t.breakdown.filter((c) => /saved for the backward|still saved at the backward's peak/.test(c.label)).reduce((a, c) => a + c.bytes, 0) };
};

it('a frozen backbone saves nothing for the backward; the head saves its input; the phase is a lower bound', async () => {
  for (const freeze of ['for p in model.features.parameters():\n    p.requires_grad = False', 'model.features.requires_grad_(False)']) {
    const { t, unknowns, bytes } = saved(await analyze(program(freeze), { device: 't4' }));
    // fc saves its input, the pooled and flattened features [64, 64] in float32 (derivatives.yaml addmm: mat1).
    assert.equal(bytes, 64 * 64 * 4, freeze);
    assert.equal(t.peakIsLowerBound, true);
    assert.ok(unknowns.some((u) => u.what === 'forward working memory'), freeze);
  }
  // Trained in full: each ReLU's result is saved (by the ReLU, and by the next convolution as its input):
  // two [64, 64, 128, 128] float32 tensors.
  const full = saved(await analyze(program('').replace('model.fc.parameters()', 'model.parameters()'), { device: 't4' }));
  assert.ok(full.bytes >= 2 * 64 * 64 * 128 * 128 * 4, `${full.bytes}`);
  assert.ok(!full.unknowns.some((u) => u.what === 'forward working memory'));
});
