// Lightning Fabric (frameworks/lightning/fabric.ts): Fabric(precision=, strategy=, devices=), fabric.launch(fn, ...),
// fabric.setup(model, optimizer), fabric.backward(loss) around a hand-written torch loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const src = (fabric: string, launch = 'fabric.launch(main, 10)') => `import torch
import torch.nn as nn
import lightning as L


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(1024, 4096)
        self.l2 = nn.Linear(4096, 10)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))


def main(fabric, steps):
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters())
    model, optimizer = fabric.setup(model, optimizer)
    x = torch.randn(512, 1024, device=fabric.device)
    y = torch.randint(0, 10, (512,), device=fabric.device)
    for _ in range(steps):
        loss = nn.functional.cross_entropy(model(x), y)
        fabric.backward(loss)
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    fabric = ${fabric}
    ${launch}
`;
const OPTS = { device: 'a100-80gb', versions: {} };
// Linear(1024, 4096) + Linear(4096, 10): weights and biases (torch/nn/modules/linear.py).
const N = 1024 * 4096 + 4096 + 4096 * 10 + 10;

async function training(fabric: string, launch?: string) {
  const r = await analyze(src(fabric, launch), OPTS);
  assert.deepEqual(r.models.map((m) => m.facts.name), ['Net'], fabric);
  const m = r.models[0];
  assert.equal(m.facts.paramCount, N);
  const p = m.estimate.phases.find((x) => x.phase === 'training');
  assert.ok(p, `${fabric}: a training phase`);
  const part = (re: RegExp) => p.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  return { m, p, part };
}

test('Fabric precision="bf16-true": parameters, gradients and AdamW state in bfloat16, inputs converted, output back to float32', async () => {
  const { m, p, part } = await training('L.Fabric(accelerator="cuda", devices=1, precision="bf16-true")');
  // HalfPrecision.convert_module: module.to(bfloat16) (lightning/fabric/plugins/precision/half.py).
  assert.ok(m.facts.params.every((t) => t.dtype === 'bfloat16'), JSON.stringify(m.facts.params.map((t) => t.dtype)));
  // AdamW's exp_avg and exp_avg_sq take the parameters' dtype (torch/optim/adamw.py zeros_like(p)).
  assert.equal(part(/^optimizer state/), 2 * N * 2);
  assert.equal(part(/^gradients/), N * 2);
  // convert_input: the [512, 1024] float32 batch gets a bfloat16 copy; the caller's float32 tensor stays alive.
  assert.equal(part(/^forward input \(bfloat16\)/), 512 * 1024 * 2);
  assert.equal(part(/^forward input \(float32\)/), 512 * 1024 * 4);
  // convert_output: the [512, 10] output the loss reads is float32.
  assert.equal(part(/forward output \[512,10\] \(float32\)/), 512 * 10 * 4);
  assert.equal(p.peakIsLowerBound, false, JSON.stringify(p.unknowns));
});

test('Fabric precision="bf16-mixed" (and legacy "bf16"): float32 parameters, the forward under autocast', async () => {
  for (const prec of ['"bf16-mixed"', '"bf16"']) {
    const { m, p, part } = await training(`L.Fabric(devices=1, precision=${prec})`);
    assert.ok(m.facts.params.every((t) => t.dtype === 'float32'));
    assert.equal(part(/^optimizer state/), 2 * N * 4);
    assert.ok(p.notes.some((n) => /torch\.autocast\(bfloat16\)/.test(n)), JSON.stringify(p.notes));
  }
});

test('Fabric strategy="fsdp" over 4 devices divides parameters, gradients and optimizer state; launch() without a function', async () => {
  const { p, part } = await training('L.Fabric(devices=4, strategy="fsdp")', 'fabric.launch()\n    main(fabric, 10)');
  assert.equal(part(/^optimizer state/), (2 * N * 4) / 4);
  assert.ok(p.notes.some((n) => /divided over 4 devices/.test(n)), JSON.stringify(p.notes));
});

test('Fabric with a precision it does not model is an unknown, not a number', async () => {
  const { p } = await training('L.Fabric(devices=1, precision="transformer-engine")');
  assert.equal(p.peakIsLowerBound, true);
  assert.ok(p.unknowns.some((u) => /Fabric\(precision="transformer-engine"\)/.test(u.reason)), JSON.stringify(p.unknowns));
});

test('Fabric strategy="dp" over 2 devices is DataParallel in one process: replica activations unknown, state not divided', async () => {
  const { p, part } = await training('L.Fabric(devices=2, strategy="dp")');
  assert.equal(part(/^optimizer state/), 2 * N * 4);
  assert.equal(p.peakIsLowerBound, true);
  assert.ok(p.unknowns.some((u) => /DataParallel over 2 devices/.test(u.reason)), JSON.stringify(p.unknowns));
});
