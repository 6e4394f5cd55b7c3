// The analyzer's size caps on real programs' data: a character-level corpus read whole gives its vocabulary
// (set() of a string is its distinct characters), while a comprehension over more items than a list may hold
// is an unknown, never the items built so far or an empty list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

test('a character vocabulary from a 1.2M-character text gives the model its size; encoding the text is over the cap and unknown', async () => {
  const src = `import torch
import torch.nn as nn

text = 'hello world\\n' * 100000
chars = sorted(list(set(text)))
vocab_size = len(chars)
stoi = {ch: i for i, ch in enumerate(chars)}
encode = lambda s: [stoi[c] for c in s]
data = encode(text)

class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, 16)
        self.head = nn.Linear(16, vocab_size)

class Counted(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(4, n)

model = LM()
other = Counted(min(len(data), 3))
`;
  const r = await analyze(src, { device: 'a100-80gb' });
  const lm = r.models.find((m) => m.facts.name === 'LM')!;
  // Distinct characters: ' ', '\\n', d, e, h, l, o, r, w = 9.
  assert.deepEqual(lm.facts.unknowns, []);
  assert.equal(lm.facts.paramCount, 9 * 16 + 16 * 9 + 9);
  const other = r.models.find((m) => m.facts.name === 'Counted')!;
  assert.equal(other.facts.paramCount, null, 'len() of a comprehension over 1.2M items is not known (not 0)');
  assert.ok(r.unknowns.some((u) => /comprehension over s of 1200000 items is over the analysis size cap/.test(u.reason)) || other.facts.unknowns.length > 0);
});

test('a workspace text file of more lines than a config holds is data: not followed line by line (was 10 s, then the step budget)', async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const root = mkdtempSync(join(tmpdir(), 'oomlens-vocab-'));
  const src = `def load_vocab(path):
    words = set()
    with open(path, "r", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                words.add(line.strip().split()[0])
    return words


vocab = load_vocab("vocab.txt")
kept = set([w for w in vocab if all("a" <= c <= "z" for c in w)])
import torch.nn as nn
model = nn.Sequential(nn.Linear(1024, 1024))
`;
  try {
    writeFileSync(join(root, 'pyproject.toml'), '');
    writeFileSync(join(root, 'vocab.txt'), Array.from({ length: 64_000 }, (_, i) => `word${i} ${i}`).join('\n'));
    writeFileSync(join(root, 'v.py'), src);
    const r = await analyze(src, { path: join(root, 'v.py'), device: 'a100-80gb', versions: {} });
    assert.ok(!r.unknowns.some((u) => /step budget|time budget/.test(u.reason)), JSON.stringify(r.unknowns));
    assert.equal(r.models[0]?.facts.paramCount, 1024 * 1024 + 1024);
  } finally { rmSync(root, { recursive: true, force: true }); }
});
