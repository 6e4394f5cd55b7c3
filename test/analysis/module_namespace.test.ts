// `self.temb = nn.Module(); self.temb.dense = nn.ModuleList([...])` and `down = nn.Module(); down.block = ...`:
// the DDPM and latent-diffusion U-Nets (ermongroup/ddim models/diffusion.py) keep submodules on bare modules.
// `nn.Module()` was a call "not modelled", so the whole U-Net's count was unknown. Checked against PyTorch
// (test/python/build_count.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { countedBoth } from '../python/venv';

const file = join(__dirname, '..', 'fixtures', 'robust', 'module_namespace.py');

test('a bare nn.Module() holds what is assigned to it: the count PyTorch gives', async () => {
  const { oomlens, framework } = await countedBoth(file);
  assert.deepEqual(oomlens, [['Model', framework, 0]]);
});

// Module.__setattr__ puts a tensor assigned to a registered buffer's name in `_buffers` (torch/nn/modules/module.py):
// facebookresearch/moco normalises its queue so (`self.queue = F.normalize(self.queue, dim=0)`); it was listed as
// "a tensor attribute, not a parameter or buffer".
test('a tensor assigned to a registered buffer\'s name is that buffer', async () => {
  const r = await analyze(`import torch
import torch.nn as nn
import torch.nn.functional as F


class MoCo(nn.Module):
    def __init__(self, dim=128, K=65536):
        super().__init__()
        self.encoder = nn.Linear(512, dim)
        self.register_buffer("queue", torch.randn(dim, K))
        self.queue = F.normalize(self.queue, dim=0)


model = MoCo().cuda()
`, { device: 't4', versions: {} });
  const m = r.models[0];
  assert.deepEqual(m.facts.buffers.map((b) => [b.shape.join('x'), b.dtype]), [['128x65536', 'float32']]);
  const load = m.facts.phases.find((p) => p.phase === 'load')!;
  assert.ok(load.events.every((e) => e.op !== 'alloc' || !/not parameters or buffers/.test(e.tensor.group ?? '')));
});
