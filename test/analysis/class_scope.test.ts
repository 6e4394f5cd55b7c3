// Python name resolution skips class scopes: inside a method, a bare `make_cache(...)` is the module's function,
// even when the class has a method of the same name (interp.ts closureFrame). Before, the method called itself
// until the call depth limit and the model's size was unknown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const SRC = `import torch
import torch.nn as nn


class Net(nn.Module):
    scale = 2

    def __init__(self, n):
        super().__init__()
        self.l = nn.Linear(n, n * self.scale)
        self.register_buffer("cache", self.make_cache(n))

    def make_cache(self, n):
        return make_cache(n)

    def forward(self, x):
        return self.l(x)


def make_cache(k):
    return torch.ones(k, k)


model = Net(64)
`;

test('a method calling the module function of its own name reaches the function, not itself', async () => {
  const r = await analyze(SRC, { device: 'a100-80gb', versions: {} });
  assert.deepEqual(r.models.map((m) => m.facts.name), ['Net']);
  const m = r.models[0];
  // Linear(64, 128): 64·128 weight + 128 bias (torch/nn/modules/linear.py); the class attribute `scale` is read through self.
  assert.equal(m.facts.paramCount, 64 * 128 + 128);
  assert.deepEqual(m.facts.buffers.map((b) => b.shape), [[64, 64]]);
  assert.deepEqual(m.facts.unknowns, []);
});
