// A model class that is also the base of another class in its file (Net under WideNet) is reported on
// the definition file when a workspace program builds it (program/project.ts), "as built in train.py:N";
// the subclass no program builds stays an explained unbuilt model. Regression fixture:
// test/fixtures/projects/base_class_built; real-repository check: `npm run realcode`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

interface Report { files: { models: { name: string; params: number | null; origin?: string }[]; unbuilt: { name: string; reason: string }[] }[] }

test('a base class a program builds is reported on its definition file', () => {
  const r = spawnSync(process.execPath, [cli, 'check', 'model.py', '--format', 'json'], { cwd: join(root, 'test', 'fixtures', 'projects', 'base_class_built'), encoding: 'utf8', timeout: 120_000 });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  const f = (JSON.parse(r.stdout) as Report).files[0];
  const net = f.models.find((m) => m.name === 'Net');
  assert.ok(net, JSON.stringify(f.models));
  // 3 × Linear(64, 64): 3 × (64·64 + 64) (torch/nn/modules/linear.py: weight and bias).
  assert.equal(net.params, 3 * (64 * 64 + 64));
  assert.match(net.origin ?? '', /^as built in train\.py:\d+$/);
  assert.ok(!f.models.some((m) => m.name === 'WideNet'), 'WideNet is built by no program');
  assert.ok(f.unbuilt.some((u) => u.name === 'WideNet'), JSON.stringify(f.unbuilt));
});
