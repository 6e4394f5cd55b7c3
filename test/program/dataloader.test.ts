// Workloads from the data path: the batch a DataLoader yields (the user's
// Dataset.__getitem__, collated batch_size times) reaches the training step.
// The batch shape is checked against the real torch DataLoader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { analyze } from '../../server/src/analysis/analyze';
import { venvPython } from '../python/venv';

const dir = join(__dirname, '..', 'fixtures', 'projects', 'dataloader');
const file = join(dir, 'train.py');

test('DataLoader batches of a custom Dataset size the training activations', async () => {
  // The real loader's first batch (the program's module body up to the loader, without the loop).
  const src = readFileSync(file, 'utf8').split('model = LM()')[0];
  const py = `${src}\nloader = DataLoader(Chars(), batch_size=64, shuffle=True)\nx, y = next(iter(loader))\nprint(list(x.shape), str(x.dtype))`;
  const r = spawnSync(venvPython(), ['-c', py], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), '[64, 256] torch.int64');

  const res = await analyze(readFileSync(file, 'utf8'), { path: file, device: 'a100-80gb' });
  const train = res.models[0].estimate.phases.find((p) => p.phase === 'training');
  assert.ok(train);
  const acts = train.breakdown.find((c) => /activations/.test(c.label));
  // Saved for backward: the embedding output [64, 256, 384] and the logits [64, 256, 65], float32.
  assert.equal(acts?.bytes, 64 * 256 * 384 * 4 + 64 * 256 * 65 * 4);
});
