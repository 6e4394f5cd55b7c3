// pathlib paths as programs name files with them (program/pathlib.ts): each expression's str() as oomlens reads it
// equals Python's own (the system python3 computes the truth). A path oomlens cannot read is unknown, never a
// wrong string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';

// A model one Linear wide: `M(n)` has n + 1 parameters.
const HEAD = 'import torch.nn as nn\nfrom pathlib import Path\n\nclass M(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n        self.l = nn.Linear(n, 1)\n\n';

const EXPRS = [
  'Path("configs") / "model.yaml"',
  'Path("configs/model.yaml").parent',
  'Path("configs/model.tar.gz").suffix',
  'Path("configs/model.tar.gz").stem',
  'Path("configs/model.tar.gz").name',
  '"|".join(Path("a/b/c.json").parts)',
  '"|".join(Path("a/b/c.tar.gz").suffixes)',
  'Path("a", "b", "c.json")',
  'Path("a/b") / Path("/abs/c")',
  'Path("a/b/c.json").with_suffix(".yaml")',
  'Path("a/b/c.json").with_name("d.txt")',
  'Path("a").joinpath("b", "c")',
  'Path("a/b/c").relative_to("a")',
  'Path("./x/./y/")',
  'Path("x").parent',
  'f"{Path(\'runs\') / \'exp1\'}/ckpt"',
  '"|".join(sorted(p.name for p in Path("cfg").glob("*.json")))',
  '"|".join(p.stem for p in sorted(Path("cfg").iterdir()))',
  'Path("cfg/a.json").exists() and not Path("cfg/none.json").exists()',
  '(Path("cfg") / "a.json").read_text().strip()',
];

test('pathlib expressions read as Python reads them', async () => {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-pathlib-'));
  try {
    writeFileSync(join(root, 'pyproject.toml'), '');
    mkdirSync(join(root, 'cfg'));
    writeFileSync(join(root, 'cfg', 'a.json'), '{"w": 3}\n');
    writeFileSync(join(root, 'cfg', 'b.json'), '{}');
    writeFileSync(join(root, 'cfg', 'notes.txt'), '');
    const py = spawnSync('python3', ['-c', `import json\nfrom pathlib import Path\nprint(json.dumps([str(${EXPRS.map((e) => `(${e})`).join('), str(')})]))`], { cwd: root, encoding: 'utf8' });
    assert.equal(py.status, 0, py.stderr);
    const truth = JSON.parse(py.stdout) as string[];
    for (const [i, e] of EXPRS.entries()) {
      // The Linear is 7 wide exactly when oomlens's str() of the expression is Python's.
      const file = join(root, 't.py');
      const text = `${HEAD}want = ${JSON.stringify(truth[i])}\ngot = str(${e})\nmodel = M(7 if got == want else 1).cuda()\n`;
      writeFileSync(file, text);
      const r = await analyze(text, { path: file, device: 't4', versions: {} });
      assert.equal(r.models[0]?.facts.paramCount, 8, `${e}: Python gives ${JSON.stringify(truth[i])}`);
    }
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('a path oomlens cannot know is unknown: Path.home(), a folder outside the workspace, a part not known', async () => {
  for (const e of ['Path.home() / "x"', 'Path("/nonexistent-oomlens-dir").glob("*")', 'Path(__import__("sys").argv[1]) / "x"']) {
    const text = `${HEAD}model = M(len(str(${e}))).cuda()\n`;
    const r = await analyze(text, { device: 't4', versions: {} });
    assert.equal(r.models[0]?.facts.paramCount ?? null, null, e);
  }
});
