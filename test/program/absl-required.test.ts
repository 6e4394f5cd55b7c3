// absl `flags.mark_flags_as_required` on a flag with no default (absl/flags/_validators.py): with no command line
// the flag is a named unknown (the model reported, its size unknown, the file saying which flag is missing); a
// launch command that gives it sizes the model. Fixture: test/fixtures/projects/absl_required.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'test', 'fixtures', 'projects', 'absl_required');

interface Report { files: { models: { name: string; params: number | null }[]; unknowns: { what: string; reason: string }[] }[] }

function check(cwd: string): Report['files'][0] {
  const r = spawnSync(process.execPath, [cli, 'check', 'main.py', '--format', 'json'], { cwd, encoding: 'utf8', timeout: 120_000 });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  return (JSON.parse(r.stdout) as Report).files[0];
}

test('a required absl flag with no value: the model is reported with unknown size and the flag named', () => {
  const f = check(fixture);
  assert.deepEqual(f.models.map((m) => [m.name, m.params]), [['Tower', null]]);
  assert.ok(f.unknowns.some((u) => /^--hidden is required and has no default/.test(u.reason)), JSON.stringify(f.unknowns));
});

test('a required absl flag given by a launch command sizes the model', () => {
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-absl-required-'));
  try {
    cpSync(fixture, dir, { recursive: true });
    mkdirSync(join(dir, 'scripts'));
    writeFileSync(join(dir, 'scripts', 'run.sh'), 'python main.py --hidden=256\n');
    const f = check(dir);
    // 4 × Linear(256, 256): 4 × (256·256 weight + 256 bias) (torch/nn/modules/linear.py).
    assert.deepEqual(f.models.map((m) => [m.name, m.params]), [['Tower', 4 * (256 * 256 + 256)]]);
    assert.ok(!f.unknowns.some((u) => /is required/.test(u.reason)), JSON.stringify(f.unknowns));
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
