// A file that builds more models than the analysis sizes (MAX_MODELS, analyze.ts): the first ones, in the order
// the program builds them, are sized and reported; the rest are one unknown that names the cap and where they
// start. Before the cap every one was sized, and a 12,831-model file made a ~100 MB result (docs/performance.md).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { analyze, MAX_MODELS } from '../../server/src/analysis/analyze';

const head = `import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc(x)

`;

it(`a file building ${MAX_MODELS + 5} models: ${MAX_MODELS} sized, the other 5 named as over the cap`, async () => {
  const lines = Array.from({ length: MAX_MODELS + 5 }, (_, i) => `m${i} = Head()`);
  const r = await analyze(head + lines.join('\n') + '\n', { device: 't4' });
  assert.equal(r.models.length, MAX_MODELS);
  // Each sized model is exact: 128 * 10 + 10 parameters.
  assert.ok(r.models.every((m) => m.facts.params.reduce((n, t) => n + (t.shape as number[]).reduce((a, b) => a * b, 1), 0) === 1290));
  const capped = r.unknowns.filter((u) => /over the analysis cap/.test(u.reason));
  assert.equal(capped.length, 1);
  assert.equal(capped[0].reason, `5 more models, from line ${12 + MAX_MODELS} on, are not sized: over the analysis cap of ${MAX_MODELS} models per file`);
});

it('a file under the cap reports every model and no cap', async () => {
  const lines = Array.from({ length: 12 }, (_, i) => `m${i} = Head()`);
  const r = await analyze(head + lines.join('\n') + '\n', { device: 't4' });
  assert.equal(r.models.length, 12);
  assert.ok(!r.unknowns.some((u) => /over the analysis cap/.test(u.reason)));
});

it('models left when sizing is out of time are named as one budget unknown, not sized', async () => {
  // No time at all, for the program or for sizing: the program reaches the interpreter's first time check after a
  // few hundred models; none of those is sized, and all are counted from the first one's line.
  const many = head + Array.from({ length: 2000 }, (_, i) => `m${i} = Head()`).join('\n') + '\n';
  const r = await analyze(many, { device: 't4', timeBudgetMs: -1, sizingGraceMs: -1 });
  assert.equal(r.models.length, 0);
  const left = r.unknowns.filter((u) => /are not sized: analysis time budget exhausted/.test(u.reason));
  assert.equal(left.length, 1, JSON.stringify(r.unknowns.map((u) => u.reason)));
  assert.match(left[0].reason, /^\d+ more models, from line 12 on, are not sized: analysis time budget exhausted$/);
  assert.ok(r.unknowns.some((u) => /^analysis time budget exhausted at line \d+$/.test(u.reason)));
  // With the default grace the same models are sized.
  const sized = await analyze(many, { device: 't4', timeBudgetMs: -1 });
  assert.equal(sized.models.length, Number(/^(\d+)/.exec(left[0].reason)![1]));
});

it('one model over the cap is named in the singular', async () => {
  const lines = Array.from({ length: MAX_MODELS + 1 }, (_, i) => `m${i} = Head()`);
  const r = await analyze(head + lines.join('\n') + '\n', { device: 't4' });
  assert.deepEqual(r.unknowns.filter((u) => /over the analysis cap/.test(u.reason)).map((u) => u.reason), [`1 more model, from line ${12 + MAX_MODELS} on, is not sized: over the analysis cap of ${MAX_MODELS} models per file`]);
});
