// A program's `class X(ModelMixin, ConfigMixin)` is a torch module (diffusers/models/modeling_utils.py: `class
// ModelMixin(torch.nn.Module, PushToHubMixin)`), and `@register_to_config` makes `self.config.<name>` the
// arguments of `__init__` (configuration_utils.py register_to_config). It was not a module at all: its first
// child block was reported as "the model", and a training loop over it had no training phase (mkshing/e4t-diffusion's
// own UNet, issue #14). Counted by diffusers itself (test/python/build_count.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { countedBoth } from '../python/venv';

test('a ModelMixin subclass reading self.config is the model, with the count diffusers gives', async () => {
  const { oomlens, framework } = await countedBoth(join(__dirname, '..', 'fixtures', 'robust', 'diffusers_model_mixin.py'));
  assert.deepEqual(oomlens, [['Denoiser', framework, 0]]);
});

test('a ModelMixin subclass trained by the program has a training phase', async () => {
  const r = await analyze(`import torch
import torch.nn as nn
from diffusers.models.modeling_utils import ModelMixin


class Net(ModelMixin):
    def __init__(self, ch=4096):
        super().__init__()
        self.inp = nn.Linear(64, ch)
        self.out = nn.Linear(ch, 64)

    def forward(self, x):
        return self.out(self.inp(x))


net = Net().cuda()
opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
for step in range(10):
    loss = net(torch.randn(32, 64, device="cuda")).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
`, { device: 't4', versions: {} });
  assert.deepEqual(r.models.map((m) => [m.facts.name, m.facts.paramCount]), [['Net', 64 * 4096 + 4096 + 4096 * 64 + 64]]);
  assert.ok(r.models[0].facts.phases.some((p) => p.phase === 'training'));
});
