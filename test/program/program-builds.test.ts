// A model file whose class several workspace programs build (program/project.ts): the class is
// reported as the program whose build has a size builds it (train.py), not as one that reads the
// sizes from a checkpoint it cannot open (ckpt_eval.py, found first); the file's builder functions
// (net_small(), net_large()) stay reported under their own names. Fixture:
// test/fixtures/projects/program_builds; real-repository check: `npm run realcode`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

interface Report { files: { models: { name: string; params: number | null; origin?: string }[] }[] }

// depth × Linear(width, width): depth × (width² + width) (torch/nn/modules/linear.py: weight and bias).
const linears = (width: number, depth: number) => depth * (width * width + width);

test('a class built by several programs: the sized build is shown, builder functions stay', () => {
  const r = spawnSync(process.execPath, [cli, 'check', 'zoo.py', '--format', 'json'], { cwd: join(root, 'test', 'fixtures', 'projects', 'program_builds'), encoding: 'utf8', timeout: 120_000 });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  const f = (JSON.parse(r.stdout) as Report).files[0];
  const by = (name: string) => f.models.find((m) => m.name === name);
  assert.equal(by('net_small')?.params, linears(16, 2), JSON.stringify(f.models));
  assert.equal(by('net_large')?.params, linears(128, 4));
  const net = by('Net');
  assert.ok(net, JSON.stringify(f.models));
  assert.equal(net.params, linears(32, 3));
  assert.match(net.origin ?? '', /^as built in train\.py:\d+$/);
});

test('a class a program builds only as a part of another model is shown as built there', () => {
  const r = spawnSync(process.execPath, [cli, 'check', 'nets/tower.py', '--format', 'json'], { cwd: join(root, 'test', 'fixtures', 'projects', 'part_built'), encoding: 'utf8', timeout: 120_000 });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  const f = (JSON.parse(r.stdout) as Report & { files: { unbuilt?: unknown[] }[] }).files[0];
  assert.deepEqual(f.models.map((m) => [m.name, m.params]), [['Tower', linears(64, 3)]]);
  assert.match(f.models[0].origin ?? '', /^as built in \.\.\/train\.py:\d+$/);
  assert.deepEqual(f.unbuilt ?? [], []);
});
