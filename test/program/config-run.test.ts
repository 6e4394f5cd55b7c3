// A config file (YAML, or a Python config that no program imports) is analysed as the workspace's commands run
// it: README.md's `python train.py configs/small.yaml` is analysed with those words and its model reported on
// the config file. A config that no command names says so (never "no model" in silence, never Python syntax
// errors for YAML). Fixture: test/fixtures/projects/config_run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'test', 'fixtures', 'projects', 'config_run');

interface Report { files: { models: { name: string; params: number | null; run?: string }[]; unknowns: { what: string; reason: string }[] }[] }

function check(file: string): Report['files'][0] {
  const r = spawnSync(process.execPath, [cli, 'check', file, '--format', 'json'], { cwd: fixture, encoding: 'utf8', timeout: 120_000 });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  return (JSON.parse(r.stdout) as Report).files[0];
}

test('a YAML config named by a README command: the model its program builds with it', () => {
  const f = check('configs/small.yaml');
  // 3 × Linear(128, 128): 3 × (128·128 weight + 128 bias) (torch/nn/modules/linear.py).
  assert.deepEqual(f.models.map((m) => [m.name, m.params, m.run]), [['Tower', 3 * (128 * 128 + 128), 'args from README.md:6']]);
  assert.ok(!f.unknowns.some((u) => /syntax/.test(u.reason)), JSON.stringify(f.unknowns));
});

test('a YAML config no command names: an explicit unknown, not Python syntax errors', () => {
  const f = check('configs/unused.yaml');
  assert.deepEqual(f.models, []);
  assert.deepEqual(f.unknowns.map((u) => u.reason), ['not a Python file, and no command of the workspace (README, shell scripts, .vscode/launch.json, [[tool.oomlens.runs]]) passes it to a program']);
});

test("absl's `path:arg` form names the config; the command leaves the size unknown, so the model is unknown", () => {
  const f = check('configs/sweep.py');
  assert.deepEqual(f.models.map((m) => [m.name, m.params]), [['Tower', null]]);
});

test('a Python config no command names: the program with an ml_collections config-file flag runs it', () => {
  const f = check('configs/wide.py');
  // 2 × Linear(96, 96): 2 × (96·96 weight + 96 bias) (torch/nn/modules/linear.py).
  assert.deepEqual(f.models.map((m) => [m.name, m.params, m.run]), [['Wide', 2 * (96 * 96 + 96), "args from absl_main.py --config=configs/wide.py (the program's config-file flag)"]]);
});
