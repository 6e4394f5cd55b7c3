// A second copy of the model on the device while it trains — copy.deepcopy(model) kept as an exponential moving
// average, torch.optim.swa_utils.AveragedModel, timm's ModelEma / ModelEmaV2 / ModelEmaV3, a second instance moved
// with .cuda() — holds another full set of parameters and buffers through every training step. It was left out of
// the training peak (a "fits" short by the size of the model). A copy kept on the host (device='cpu', .cpu()) or a
// module never moved is not on the device.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const PROGRAM = `import copy
import torch
import torch.nn as nn
import timm
from torch.optim.swa_utils import AveragedModel


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(1024, 2048)
        self.norm = nn.BatchNorm1d(2048)
        self.fc2 = nn.Linear(2048, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.norm(self.fc1(x))))


def main():
    model = Net().cuda()
    ema = COPY
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(100):
        x = torch.randn(64, 1024, device="cuda")
        y = torch.randint(0, 10, (64,), device="cuda")
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


main()
`;

// nn.Linear: weight out×in + bias out; nn.BatchNorm1d(C): weight, bias (C each) and buffers running_mean,
// running_var (C each, float32) and num_batches_tracked (one int64) — torch/nn/modules/batchnorm.py _NormBase.
const PARAMS = (1024 * 2048 + 2048) + 2 * 2048 + (2048 * 10 + 10);
const COPY_BYTES = PARAMS * 4 + 2 * 2048 * 4 + 8;

async function run(copy: string) {
  const r = await analyze(PROGRAM.replace('COPY', copy), { device: 'a100-80gb', versions: {} });
  const trained = r.models.filter((x) => x.facts.name === 'Net' && x.estimate.phases.some((ph) => ph.phase === 'training'));
  assert.equal(trained.length, 1, 'one Net is trained');
  const p = trained[0].estimate.phases.find((x) => x.phase === 'training');
  assert.ok(p && p.peakBytes !== null, 'a known training peak');
  const other = p.breakdown.filter((b) => /^another module on the device/.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  return { peak: p.peakBytes!, other };
}

test('the training peak counts a moving-average copy of the model kept on the device', async () => {
  const none = await run('None');
  assert.equal(none.other, 0);
  for (const copy of [
    'copy.deepcopy(model)',
    'copy.deepcopy(model).eval()',
    'AveragedModel(model)',
    'timm.utils.ModelEmaV2(model, decay=0.9998)',
    'timm.utils.ModelEmaV3(model)',
    'timm.utils.ModelEma(model, 0.9998)',
    'Net().cuda()',
  ]) {
    const r = await run(copy);
    assert.equal(r.other, COPY_BYTES, `${copy}: one more copy of every parameter and buffer`);
    assert.equal(r.peak - none.peak, COPY_BYTES, `${copy}: the peak grows by exactly the copy`);
  }
});

test('a copy kept on the host, or a module never moved, is not in the device peak', async () => {
  const none = await run('None');
  for (const copy of [
    'copy.deepcopy(model).cpu()',
    'AveragedModel(model, device="cpu")',
    'timm.utils.ModelEmaV2(model, decay=0.9998, device="cpu")',
    'timm.utils.ModelEma(model, 0.9998, "cpu")',
    'Net()',
  ]) {
    const r = await run(copy);
    assert.equal(r.other, 0, copy);
    assert.equal(r.peak, none.peak, copy);
  }
});

test('a copy released before the loop (del) is not counted', async () => {
  const none = await run('None');
  const r = await run('copy.deepcopy(model)\n    del ema');
  assert.equal(r.other, 0);
  assert.equal(r.peak, none.peak);
});

test('another module on the device whose size is not known is an unknown of the step, not nothing', async () => {
  const src = PROGRAM.replace('ema = COPY', 'teacher = Teacher().cuda()').replace('def main():', `class Teacher(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(*make_layers())


def main():`).replace('import timm', 'import timm\nfrom somewhere_unmodelled import make_layers');
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  const net = r.models.find((x) => x.facts.name === 'Net' && x.estimate.phases.some((ph) => ph.phase === 'training'));
  assert.ok(net);
  const p = net.estimate.phases.find((x) => x.phase === 'training')!;
  assert.ok(p.unknowns.some((u) => u.what === 'another module on the device' && /Teacher/.test(u.reason)), JSON.stringify(p.unknowns));
  // With every module's size known the step stays known (the copy tests above have no such unknown).
  const known = await analyze(PROGRAM.replace('COPY', 'copy.deepcopy(model)'), { device: 'a100-80gb', versions: {} });
  const k = known.models.find((x) => x.facts.name === 'Net' && x.estimate.phases.some((ph) => ph.phase === 'training'))!;
  assert.ok(!k.estimate.phases.find((x) => x.phase === 'training')!.unknowns.some((u) => u.what === 'another module on the device'));
});

test('two models trained in one loop: each step holds the other model\'s weights and optimizer state', async () => {
  const src = `import torch
import torch.nn as nn


class G(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(128, 4096), nn.ReLU(), nn.Linear(4096, 4096))

    def forward(self, z):
        return self.net(z)


class D(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 1))

    def forward(self, x):
        return self.net(x)


g = G().cuda()
d = D().cuda()
og = torch.optim.Adam(g.parameters())
od = torch.optim.Adam(d.parameters())
for step in range(10):
    z = torch.randn(64, 128, device="cuda")
    real = torch.randn(64, 4096, device="cuda")
    fake = g(z)
    ld = d(real).mean() - d(fake.detach()).mean()
    od.zero_grad(); ld.backward(); od.step()
    lg = -d(fake).mean()
    og.zero_grad(); lg.backward(); og.step()
`;
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  // D: Linear(4096, 4096) + Linear(4096, 1) = 4096·4096 + 4096 + 4096 + 1 parameters, float32; Adam keeps m and v
  // (torch/optim/adam.py _init_group: exp_avg, exp_avg_sq, each like the parameter).
  const dParams = 4096 * 4096 + 4096 + 4096 + 1;
  const gParams = 128 * 4096 + 4096 + 4096 * 4096 + 4096;
  const part = (name: string, re: RegExp) => {
    const m = r.models.find((x) => x.facts.name === name)!;
    return m.estimate.phases.find((x) => x.phase === 'training')!.breakdown.filter((b) => re.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  };
  assert.equal(part('G', /^another module on the device: D/), dParams * 4);
  assert.equal(part('G', /^optimizer state of another module: D/), dParams * 8);
  assert.equal(part('D', /^another module on the device: G/), gParams * 4);
  assert.equal(part('D', /^optimizer state of another module: G/), gParams * 8);
  // Each model's own optimizer is counted once, as its own.
  assert.equal(part('G', /^optimizer state of another module: G/), 0);
  // The other model's gradients may be alive during this step (from its backward to its zero_grad()): not modelled,
  // so each step is a lower bound that names them, never a "fits" without them.
  for (const name of ['G', 'D']) {
    const p = r.models.find((x) => x.facts.name === name)!.estimate.phases.find((x) => x.phase === 'training')!;
    assert.ok(p.unknowns.some((u) => u.what === 'gradients of another module'), JSON.stringify(p.unknowns));
    assert.equal(p.peakIsLowerBound, true);
    assert.notEqual(p.fits, true);
  }
});
