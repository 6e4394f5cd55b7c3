// A training file whose function builds the model and hands it to a helper of a third file that initialises it
// (train.py: `m = MLP(...)`, `helpers.init_state(m, ...)` running `jax.jit(m.init)(...)`), reached from main.py:
// the training file reports the model as main.py builds it, at its own call that led to the initialisation
// (program/project.ts `reachedFrom`). Fixture: test/fixtures/projects/helper_init; real-repository check:
// `npm run realcode`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

interface Report { files: { models: { name: string; params: number | null; origin?: string; line?: number }[] }[] }

test('a model initialised by a helper of another file is reported on the training file that called it', () => {
  const r = spawnSync(process.execPath, [cli, 'check', 'train.py', '--format', 'json'], { cwd: join(root, 'test', 'fixtures', 'projects', 'helper_init'), encoding: 'utf8', timeout: 120_000 });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  const f = (JSON.parse(r.stdout) as Report).files[0];
  assert.equal(f.models.length, 1, JSON.stringify(f.models));
  const m = f.models[0];
  assert.equal(m.name, 'MLP');
  // 3 × Dense(64) on 64 features: 3 × (64·64 kernel + 64 bias) (flax/linen/linear.py Dense: kernel (in, features), bias (features,)).
  assert.equal(m.params, 3 * (64 * 64 + 64));
  assert.match(m.origin ?? '', /^as built in main\.py:4$/);
});
