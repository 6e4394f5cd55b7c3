// torch.nn.DataParallel (torch/nn/parallel/data_parallel.py): the wrapped module is the model (`.module` reaches it);
// on one device it calls the module directly, so the training step is the plain one; over several devices the
// gathered outputs stay on device 0 and replica 0's share of the activations is an unknown (a lower bound), never the
// whole batch's activations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const src = (wrap: string) => `import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(1024, 4096)
        self.l2 = nn.Linear(4096, 10)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))


model = Net().cuda()
${wrap}
opt = torch.optim.Adam(model.parameters())
x = torch.randn(512, 1024, device="cuda")
y = torch.randint(0, 10, (512,), device="cuda")
for _ in range(10):
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
head = model.module.l1 if hasattr(model, "module") else model.l1
`;
const OPTS = { device: 'a100-80gb', versions: {} };
// Linear(1024, 4096) + Linear(4096, 10): weights and biases (torch/nn/modules/linear.py).
const N = 1024 * 4096 + 4096 + 4096 * 10 + 10;

async function training(wrap: string) {
  const r = await analyze(src(wrap), OPTS);
  assert.deepEqual(r.models.map((m) => m.facts.name), ['Net'], wrap);
  assert.equal(r.models[0].facts.paramCount, N);
  const p = r.models[0].estimate.phases.find((x) => x.phase === 'training');
  assert.ok(p, `${wrap}: a training phase`);
  return p;
}

test('DataParallel on one device: the training step is the plain one', async () => {
  const plain = await training('');
  for (const wrap of ['model = nn.DataParallel(model)', 'model = torch.nn.DataParallel(model, device_ids=[0])']) {
    const dp = await training(wrap);
    assert.equal(dp.peakBytes, plain.peakBytes, wrap);
    assert.equal(dp.peakIsLowerBound, false, JSON.stringify(dp.unknowns));
    assert.ok(dp.notes.some((n) => /^DataParallel on /.test(n)), JSON.stringify(dp.notes));
  }
});

test('DataParallel over 4 devices: gathered outputs on device 0, replica activations unknown (a lower bound)', async () => {
  const plain = await training('');
  const dp = await training('model = nn.DataParallel(model, device_ids=[0, 1, 2, 3])');
  const part = (p: typeof dp, re: RegExp) => p.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  // Adam's exp_avg and exp_avg_sq (float32) and the gradients reduced onto device 0's parameters: not divided.
  assert.equal(part(dp, /^optimizer state/), 2 * N * 4);
  assert.equal(part(dp, /^gradients/), N * 4);
  // The gathered [512, 10] float32 output is on device 0; the saved activations are not counted as the whole batch's.
  assert.equal(part(dp, /forward output/), 512 * 10 * 4);
  assert.equal(part(dp, /saved for the backward/), 0);
  assert.ok(plain.timeline.some((t) => /^\+ activations: saved for the backward/.test(t.label)), 'the plain step counts them');
  assert.equal(dp.peakIsLowerBound, true);
  assert.ok(dp.unknowns.some((u) => /DataParallel over 4 devices/.test(u.reason)), JSON.stringify(dp.unknowns));
  assert.ok((dp.peakBytes ?? 0) <= (plain.peakBytes ?? 0) && dp.peakBytes !== null);
});
