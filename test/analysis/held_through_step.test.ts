// Device tensors the program still references when its training step runs stay allocated through the step
// (CPython frees an object when its last reference goes): a checkpoint loaded with map_location on the device
// and still bound to a local of the function that trains, a table made on the device before the loop. What a
// live name no longer reaches (`checkpoint = None`, `del checkpoint`) and what is on the host are not counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const PROGRAM = `import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4096, 4096)
        self.fc2 = nn.Linear(4096, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def main():
    device = "cuda"
    model = Net()
    checkpoint = torch.load("ckpt.pt", map_location=MAPLOC)
    model.load_state_dict(checkpoint)
    model.to(device)
    #BEFORE
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(100):
        x = torch.randn(64, 4096, device=device)
        y = torch.randint(0, 10, (64,), device=device)
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


main()
`;

// Net's state dict: fc1 4096·4096 + 4096, fc2 4096·10 + 10 = 16,822,282 float32 values (nn.Linear: weight out×in, bias out).
const SD = (4096 * 4096 + 4096 + 4096 * 10 + 10) * 4;

async function training(before: string, mapLoc = 'device') {
  const r = await analyze(PROGRAM.replace('#BEFORE', before).replace('MAPLOC', mapLoc), { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === 'Net');
  assert.ok(m, 'Net is reported');
  const p = m.estimate.phases.find((x) => x.phase === 'training');
  assert.ok(p && p.peakBytes !== null, 'a known training peak');
  const part = (re: RegExp) => p.breakdown.filter((b) => re.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  return { peak: p.peakBytes!, stateDict: part(/^state dict: torch\.load/), held: part(/^tensors the program still references/) };
}

test('a device checkpoint still bound to a local while the loop runs is in the training peak', async () => {
  const kept = await training('pass');
  assert.equal(kept.stateDict, SD);
  const freed = await training('checkpoint = None');
  assert.equal(freed.stateDict, 0);
  assert.equal(kept.peak - freed.peak, SD, 'exactly the checkpoint\'s bytes');
  assert.equal((await training('del checkpoint')).stateDict, 0);
});

test('a checkpoint kept on the host (map_location="cpu") is not on the device in training', async () => {
  assert.equal((await training('pass', '"cpu"')).stateDict, 0);
});

test('a tensor made on the device before the loop and still referenced is counted; a host one is not', async () => {
  const r = await training('checkpoint = None\n    table = torch.randn(1000, 4096, device=device)\n    scratch = torch.randn(1000, 4096)');
  assert.equal(r.held, 1000 * 4096 * 4);
  const none = await training('checkpoint = None\n    scratch = torch.randn(1000, 4096)');
  assert.equal(none.held, 0);
  assert.equal(r.peak - none.peak, 1000 * 4096 * 4);
});
