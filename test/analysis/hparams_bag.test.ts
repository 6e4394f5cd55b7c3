// Hyper-parameter bags of other libraries read as attribute dicts (program/configfiles.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

// TensorFlow 1's HParams(**kwargs) as a model's hyper-parameters (NVIDIA/tacotron2 hparams.py; docs/accuracy.md
// "Held-out round 11": every layer was unknown), with `hparams.parse("a=1,b=2")` overriding by the old value's type.
test('tf.contrib.training.HParams is a keyword bag; parse() overrides its values', async () => {
  const r = await analyze(`import tensorflow as tf
import torch.nn as nn

def create_hparams(hparams_string=None):
    hparams = tf.contrib.training.HParams(n_mel=80, hidden=512, layers=2, use_bias=True)
    if hparams_string:
        hparams.parse(hparams_string)
    return hparams

class Net(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(hp.hidden, hp.hidden, bias=hp.use_bias) for _ in range(hp.layers)])
        self.out = nn.Linear(hp.hidden, hp.n_mel)

model = Net(create_hparams("hidden=256,use_bias=False"))
`, { device: 't4', versions: {} });
  assert.equal(r.models[0]?.facts.paramCount, 2 * 256 * 256 + 256 * 80 + 80);
});
