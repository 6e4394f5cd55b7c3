// A command whose option value the shell fills (`--arch=$arch` in a loop of run.sh) gives that option a value
// oomlens cannot read: the option is still the one named (not a stray positional word, which let the default
// choose the model), and a program that then builds nothing says which values were not known.
// Fixture: test/fixtures/projects/launch_unknown_value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const dir = join(root, 'test', 'fixtures', 'projects', 'launch_unknown_value');

test('--name=$VAR names its option with an unknown value, and a file that builds nothing says so', () => {
  const r = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), 'check', 'train.py', '--format', 'json'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  const f = JSON.parse(r.stdout).files[0] as { models: { name: string; params: number | null }[]; unknowns: { what: string; reason: string }[] };
  assert.ok(!f.models.some((m) => m.params !== null), `no confident model from a loop variable: ${JSON.stringify(f.models)}`);
  assert.ok(f.unknowns.some((u) => u.what === 'command line' && /`--arch` is given a value oomlens cannot read/.test(u.reason)), JSON.stringify(f.unknowns));
});
