// A parse that runs past its deadline is cancelled and the file is reported as not analysed, with the reason,
// instead of keeping the analysis (and every document queued behind it in the editor) waiting: tree-sitter's
// error recovery on a mutated 1.4 MB file took 21 s (docs/performance.md, fuzz seed 2).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { analyze } from '../../server/src/analysis/analyze';
import { ParseTooSlow, parsePython } from '../../server/src/interp/parser';

// 40,000 lines with a syntax error every 7th: big enough that the parse outlasts a 1 ms deadline.
const big = Array.from({ length: 40_000 }, (_, i) => (i % 7 === 3 ? `x${i} = (1 +` : `x${i} = [${i}, ${i + 1}]`)).join('\n') + '\n';

it('a parse past its deadline throws ParseTooSlow, and the next parse starts afresh', async () => {
  await assert.rejects(parsePython(big, undefined, 1), (e: unknown) => e instanceof ParseTooSlow && /parsing took longer than 0.001 s/.test((e as Error).message));
  // tree-sitter would resume the cancelled parse on the next call unless it is reset: the next text must be its own.
  const t = await parsePython('import torch\nx = torch.zeros(3)\n');
  assert.equal(t.rootNode.text, 'import torch\nx = torch.zeros(3)\n');
  assert.equal(t.rootNode.hasError, false);
  t.delete();
});

it('analyze reports a file whose parse is too slow as not analysed, with no model and no number', async () => {
  const r = await analyze(big + 'import torch.nn as nn\nm = nn.Linear(10, 10)\n', { device: 't4', parseDeadlineMs: 1 });
  assert.equal(r.models.length, 0);
  assert.equal(r.unknowns.length, 1);
  assert.match(r.unknowns[0].reason, /^not analysed: parsing took longer than/);
});

it('the default deadline leaves an ordinary large file alone', async () => {
  const r = await analyze(big, { device: 't4' });
  assert.ok(!r.unknowns.some((u) => /parsing took longer/.test(u.reason)));
});
