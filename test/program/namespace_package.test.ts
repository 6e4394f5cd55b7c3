// A PEP 420 namespace package (a folder without __init__.py) imported by a dotted path: gordicaleksa/
// pytorch-neural-style-transfer's `from models.definitions.vgg_nets import Vgg19` with no models/__init__.py, whose
// only content is a subpackage. The import was dropped and the file read "No model found".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeFile } from '../../server/src/program/project';

test('a folder with no __init__.py holding only a subpackage is a namespace package', async () => {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-ns-'));
  mkdirSync(join(root, '.git'));
  mkdirSync(join(root, 'nets', 'arch'), { recursive: true });
  writeFileSync(join(root, 'nets', 'arch', '__init__.py'), '');
  writeFileSync(join(root, 'nets', 'arch', 'mlp.py'), 'import torch.nn as nn\n\nclass MLP(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(512, 256)\n');
  writeFileSync(join(root, 'main.py'), 'from nets.arch.mlp import MLP\n\nmodel = MLP().cuda()\n');
  const path = join(root, 'main.py');
  const r = await analyzeFile(readFileSync(path, 'utf8'), { path, device: 't4' });
  assert.deepEqual(r.models.map((m) => [m.facts.name, m.facts.paramCount]), [['MLP', 512 * 256 + 256]]);
});
