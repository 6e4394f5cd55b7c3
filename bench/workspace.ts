// Workspace benchmark (npm run bench:workspace; not part of npm test): a
// generated 200-file project (a package of layer modules importing each
// other, a config module, a model module and a train script), analysed as the
// editor does: the train script, then the model file (whose number comes
// from the train script), cold, warm (nothing changed), and after one layer
// module is edited (only what depends on it is evaluated again; unchanged
// files keep their parse trees).
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initParser } from '../server/src/interp/parser';
import { analyzeFile } from '../server/src/program/project';

const FILES = 200;

function project(dir: string, width: number): void {
  mkdirSync(join(dir, 'pkg'), { recursive: true });
  writeFileSync(join(dir, 'pyproject.toml'), '[project]\nname = "bench"\n');
  writeFileSync(join(dir, 'pkg', '__init__.py'), '');
  writeFileSync(join(dir, 'pkg', 'config.py'), `from dataclasses import dataclass\n\n@dataclass\nclass Config:\n    width: int = ${width}\n    depth: int = ${FILES - 4}\n`);
  for (let i = 0; i < FILES - 4; i++) {
    const prev = i > 0 ? `from .layer${i - 1} import Layer${i - 1}\n` : '';
    writeFileSync(join(dir, 'pkg', `layer${i}.py`), `import torch.nn as nn\n${prev}\n\nclass Layer${i}(nn.Module):\n    def __init__(self, cfg):\n        super().__init__()\n        self.fc = nn.Linear(cfg.width, cfg.width)\n        self.norm = nn.LayerNorm(cfg.width)\n`);
  }
  const imports = Array.from({ length: FILES - 4 }, (_, i) => `from .layer${i} import Layer${i}`).join('\n');
  const layers = Array.from({ length: FILES - 4 }, (_, i) => `Layer${i}(cfg)`).join(', ');
  writeFileSync(join(dir, 'pkg', 'model.py'), `import torch.nn as nn\n${imports}\n\n\nclass Net(nn.Module):\n    def __init__(self, cfg):\n        super().__init__()\n        self.layers = nn.ModuleList([${layers}])\n`);
  writeFileSync(join(dir, 'train.py'), 'import argparse\nfrom pkg.config import Config\nfrom pkg.model import Net\n\n\ndef main():\n    p = argparse.ArgumentParser()\n    p.add_argument("--width", type=int, default=256)\n    a = p.parse_args()\n    model = Net(Config(width=a.width)).cuda()\n\n\nif __name__ == "__main__":\n    main()\n');
}

async function timed(label: string, file: string, text: string): Promise<void> {
  const t0 = performance.now();
  const r = await analyzeFile(text, { path: file, device: 'a100-80gb' });
  const ms = performance.now() - t0;
  const m = r.models[0];
  console.log(`${label.padEnd(44)} ${ms.toFixed(0).padStart(6)} ms   ${m ? `${m.facts.name} ${m.facts.paramCount} params${m.origin ? ` (${m.origin})` : ''}` : 'no model'}`);
}

async function main(): Promise<void> {
  await initParser();
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-ws-'));
  try {
    project(dir, 256);
    const train = join(dir, 'train.py');
    const model = join(dir, 'pkg', 'model.py');
    const { readFileSync } = await import('node:fs');
    console.log(`${FILES}-file workspace (load average ${(await import('node:os')).loadavg()[0].toFixed(1)})`);
    await timed('train.py, cold (parse + evaluate 200 files)', train, readFileSync(train, 'utf8'));
    await timed('train.py, warm (parse trees reused)', train, readFileSync(train, 'utf8'));
    await timed('pkg/model.py (number from train.py)', model, readFileSync(model, 'utf8'));
    await timed('pkg/model.py again (train.py result cached)', model, readFileSync(model, 'utf8'));
    writeFileSync(join(dir, 'pkg', 'layer7.py'), readFileSync(join(dir, 'pkg', 'layer7.py'), 'utf8').replace('nn.LayerNorm(cfg.width)', 'nn.LayerNorm(cfg.width, elementwise_affine=False)'));
    await timed('pkg/model.py after editing pkg/layer7.py', model, readFileSync(model, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
