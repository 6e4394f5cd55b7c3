// A training checkpoint is usually a dict saved with torch.save, the module's state dict under a key
// (`torch.load(path)["model"]`, `ckpt["state_dict"]`, `ckpt.get("model")`). Loading such an entry into a module was
// not recognised as loading a state dict: with map_location on the accelerator, its copy of every parameter was left
// out of the load phase and, while a live name still holds the checkpoint, out of the training step. The other
// entries (an iteration count, saved hyper-parameters) stay unknown: they are in the file, not in the workspace.
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
    model = Net().cuda()
    checkpoint = torch.load("ckpt.pt", map_location=MAPLOC)
    model.load_state_dict(ENTRY)
    #BEFORE
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(100):
        x = torch.randn(64, 4096, device="cuda")
        y = torch.randint(0, 10, (64,), device="cuda")
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


main()
`;

// Net's state dict: fc1 4096·4096 + 4096, fc2 4096·10 + 10 float32 values (nn.Linear: weight out×in, bias out).
const SD = (4096 * 4096 + 4096 + 4096 * 10 + 10) * 4;

async function phases(entry: string, before = 'pass', mapLoc = '"cuda"') {
  const r = await analyze(PROGRAM.replace('ENTRY', entry).replace('#BEFORE', before).replace('MAPLOC', mapLoc), { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === 'Net');
  assert.ok(m, 'Net is reported');
  const get = (name: string) => m.estimate.phases.find((x) => x.phase === name)!;
  const sd = (p: ReturnType<typeof get>) => p.breakdown.filter((b) => /^state dict: torch\.load/.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  return { load: get('load'), training: get('training'), sdLoad: sd(get('load')), sdTraining: sd(get('training')), unknowns: m.estimate.unknowns ?? [] };
}

test('a state dict under a key of a device checkpoint is counted like the whole checkpoint', async () => {
  const whole = await phases('checkpoint');
  for (const entry of ['checkpoint["model"]', 'checkpoint["state_dict"]', 'checkpoint.get("model")']) {
    const r = await phases(entry);
    assert.equal(r.sdLoad, SD, `${entry}: the checkpoint's copy is in the load phase`);
    assert.equal(r.load.peakBytes, whole.load.peakBytes, entry);
    assert.equal(r.sdTraining, SD, `${entry}: still referenced by \`checkpoint\` when the step runs`);
    assert.equal(r.training.peakBytes, whole.training.peakBytes, entry);
  }
});

test('released before the loop, or kept on the host, it is not in the training step', async () => {
  const freed = await phases('checkpoint["model"]', 'checkpoint = None');
  assert.equal(freed.sdTraining, 0);
  const kept = await phases('checkpoint["model"]');
  assert.equal(kept.training.peakBytes! - freed.training.peakBytes!, SD);
  const host = await phases('checkpoint["model"]', 'pass', '"cpu"');
  assert.equal(host.sdLoad, 0);
  assert.equal(host.sdTraining, 0);
});

test('without map_location the entry is an unknown of the phase with its size, not a silent omission', async () => {
  const r = await phases('checkpoint["model"]', 'pass', 'None');
  assert.ok(r.load.peakBytes === null || r.load.unknowns?.some((u) => /map_location/.test(u.reason)) || r.unknowns.some((u) => /map_location/.test(u.reason)), 'the checkpoint device is named as unknown');
});

test('other entries of the checkpoint stay unknown, and a decision on them is not taken', async () => {
  const r = await analyze(PROGRAM.replace('ENTRY', 'checkpoint["model"]').replace('MAPLOC', '"cuda"').replace('#BEFORE', 'if checkpoint["use_big"] is None:\n        model = None'), { device: 'a100-80gb', versions: {} });
  assert.ok(r.models.some((x) => x.facts.name === 'Net'));
});

test('a host checkpoint stays off the device when the program moves the model back to the host at the end', async () => {
  // map_location="cpu", the model moved to the accelerator to train, then `model.cpu()` before saving: the
  // checkpoint never was on the device (it was counted there once `.cpu()` marked the module as on the host).
  const src = PROGRAM.replace('ENTRY', 'checkpoint["model"]').replace('MAPLOC', '"cpu"').replace('#BEFORE', 'pass')
    .replace('\n\nmain()', '\n    model.cpu()\n    torch.save(model.state_dict(), "out.pt")\n\n\nmain()');
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === 'Net')!;
  const load = m.estimate.phases.find((x) => x.phase === 'load')!;
  assert.equal(load.breakdown.filter((b) => /^state dict: torch\.load/.test(b.label)).reduce((a, b) => a + b.bytes, 0), 0);
});
