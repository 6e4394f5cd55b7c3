// A model class the program never builds is built from its defaults after the run (program/defaults.ts).
// When that build runs out of the analysis's time budget, the file says so as a budget unknown, not as
// an internal error of the analyzer.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { analyze } from '../../server/src/analysis/analyze';

const src = `import torch.nn as nn


class Slow(nn.Module):
    def __init__(self, steps=10**4):
        super().__init__()
        total = 0
        for a in range(steps):
            for b in range(steps):
                total = total + a * b
        self.proj = nn.Linear(16, 16)
`;

it('a default build cut by the time budget is a budget unknown, not an internal error', async () => {
  const r = await analyze(src, { device: 'a100-80gb', timeBudgetMs: 300 });
  const reasons = [...r.unknowns.map((u) => u.reason), ...r.unbuilt.map((u) => u.reason)];
  assert.ok(reasons.some((x) => /budget/.test(x)), reasons.join(' | '));
  assert.ok(!reasons.some((x) => /internal error/.test(x)), reasons.join(' | '));
});
