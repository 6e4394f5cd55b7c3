// The training step holds each weight in the dtype it has when the step runs. A cast after the loop (a frozen
// base kept in float16 while adapters train, then `.float()` / `.to(torch.float32)` to save it) changed the
// dtype the step was reported with: the frozen weights read as float32, twice their size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const PROGRAM = `import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4096, 4096)
        self.head = nn.Linear(4096, 16)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


model = Net()
model.body.requires_grad_(False)
model.to("cuda", dtype=torch.float16)
model.head.float()
optimizer = torch.optim.AdamW(model.head.parameters(), lr=1e-4)
for step in range(10):
    x = torch.randn(8, 4096, device="cuda", dtype=torch.float16)
    loss = model(x).float().sum()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
AFTER
`;

async function params(after: string) {
  const r = await analyze(PROGRAM.replace('AFTER', after), { device: 'a100-80gb', versions: {} });
  const t = r.models[0].estimate.phases.find((p) => p.phase === 'training')!;
  return t.breakdown.filter((b) => /^parameters/.test(b.label)).reduce((a, b) => a + b.bytes, 0);
}

test('a cast after the training loop does not change the dtype of the weights in the step', async () => {
  // body: 4096·4096 + 4096 float16 (2 B); head: 4096·16 + 16 float32 (4 B).
  const expected = (4096 * 4096 + 4096) * 2 + (4096 * 16 + 16) * 4;
  assert.equal(await params(''), expected);
  assert.equal(await params('model = model.to(torch.float32)\ntorch.save(model.state_dict(), "m.pt")'), expected);
  assert.equal(await params('model.float()'), expected);
});
