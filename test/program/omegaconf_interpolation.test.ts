// OmegaConf interpolations (`${model.dim}`, `${..width}`, `"${a}x${b}"`) in a config a program builds its model from:
// read as OmegaConf itself reads them (test/python/omegaconf_values.py). They were taken as the literal text
// "${model.dim}", so every size that came from one was unknown. A resolver (`${oc.env:…}`) stays unknown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';

const YAML = `model:
  dim: 96
  hidden: \${model.dim}
  head:
    width: \${..dim}
    label: "w\${model.dim}-d\${train.depth}"
train:
  depth: 3
  copy: \${model}
`;
const PATHS = ['model.hidden', 'model.head.width', 'model.head.label', 'train.copy.dim'];

test('OmegaConf interpolations resolve as OmegaConf resolves them', async () => {
  const [truth] = runPythonJson<{ value?: unknown; error?: string }[][]>('omegaconf_values.py', [{ yaml: YAML, paths: PATHS }]);
  const root = mkdtempSync(join(tmpdir(), 'oomlens-interp-'));
  try {
    writeFileSync(join(root, 'pyproject.toml'), '');
    writeFileSync(join(root, 'cfg.yaml'), YAML);
    for (const [i, p] of PATHS.entries()) {
      const want = truth[i].value;
      assert.ok(want !== undefined, truth[i].error);
      const file = join(root, 't.py');
      const text = `import torch.nn as nn
from omegaconf import OmegaConf

class M(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.l = nn.Linear(n, 1)

cfg = OmegaConf.load("cfg.yaml")
OmegaConf.resolve(cfg)
got = cfg.${p}
model = M(7 if got == ${JSON.stringify(want)} else 1).cuda()
`;
      writeFileSync(file, text);
      const r = await analyze(text, { path: file, device: 't4', versions: {} });
      assert.equal(r.models[0]?.facts.paramCount, 8, `${p}: OmegaConf gives ${JSON.stringify(want)}`);
    }
    // A resolver is not followed: unknown, never the literal text.
    writeFileSync(join(root, 'env.yaml'), 'dim: ${oc.env:DIM}\n');
    const text = `import torch.nn as nn\nfrom omegaconf import OmegaConf\n\nclass M(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n        self.l = nn.Linear(n, 1)\n\ncfg = OmegaConf.load("env.yaml")\nOmegaConf.resolve(cfg)\nmodel = M(cfg.dim).cuda()\n`;
    writeFileSync(join(root, 'e.py'), text);
    const r = await analyze(text, { path: join(root, 'e.py'), device: 't4', versions: {} });
    assert.equal(r.models[0]?.facts.paramCount ?? null, null);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

// OmegaConf's readers (missing_keys, save, to_container) leave the config as it was (eric-mitchell/direct-preference-
// optimization: `OmegaConf.missing_keys(config)` made every value "may have changed", no model); update() sets a key.
test('OmegaConf.missing_keys leaves the config known; OmegaConf.update sets a dotted key', async () => {
  const text = `import torch.nn as nn
from omegaconf import OmegaConf

class M(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.l = nn.Linear(n, 1)

cfg = OmegaConf.create({"model": {"dim": 16}})
missing = OmegaConf.missing_keys(cfg)
OmegaConf.update(cfg, "model.depth", 3)
model = M(cfg.model.dim * cfg.model.depth).cuda()
`;
  const r = await analyze(text, { device: 't4', versions: {} });
  assert.equal(r.models[0]?.facts.paramCount, 48 + 1);
});
