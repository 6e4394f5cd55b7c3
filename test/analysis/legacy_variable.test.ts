// torch.autograd.Variable(x), the pre-0.4 wrapper still found in training scripts, returns a Tensor sharing x's
// storage (torch/autograd/variable.py): a forward on it is sized like one on x. It was an unmodelled call, so the
// activations of such a script were unknown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const PROGRAM = `import torch
import torch.nn as nn
from torch.autograd import Variable


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(512, 1024)
        self.fc2 = nn.Linear(1024, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = Net().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    x = torch.randn(256, 512).cuda()
    y = torch.randint(0, 10, (256,)).cuda()
    output = model(WRAP(x))
    loss = nn.functional.cross_entropy(output, WRAP(y))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
`;

async function training(wrap: string) {
  const src = wrap ? PROGRAM.replaceAll('WRAP(', `${wrap}(`) : PROGRAM.replace(/WRAP\((\w)\)/g, '$1');
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === 'Net');
  assert.ok(m);
  return m.estimate.phases.find((x) => x.phase === 'training')!;
}

test('a forward on torch.autograd.Variable(x) is sized like one on x', async () => {
  const plain = await training('');
  assert.ok(plain.peakBytes !== null, 'the plain program has a known peak');
  const wrapped = await training('Variable');
  assert.equal(wrapped.peakBytes, plain.peakBytes);
  const full = await training('torch.autograd.Variable');
  assert.equal(full.peakBytes, plain.peakBytes);
});
