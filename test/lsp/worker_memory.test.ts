// The analysis worker is replaced at an idle point once it holds too much
// memory (server/src/lsp/analysisWorker.ts): the baselines its RSS growth is
// measured against, and, over LSP, that a replacement after a large document
// loses nothing — later documents get the same diagnostics from the fresh worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdleRss } from '../../server/src/lsp/analysisWorker';
import { LspClient, ROOT } from './harness';

const MB = 2 ** 20;

test('idle RSS growth: over the lowest idle point with none open, else since the worker started', () => {
  const r = new IdleRss();
  assert.equal(r.growth(200 * MB, 2), 0);
  assert.equal(r.growth(180 * MB, 0), 0);
  // With documents open: over the worker's own lowest point (180), not the first one.
  assert.equal(r.growth(230 * MB, 1), 50 * MB);
  // A replacement resets that baseline; the next idle point with documents open starts it again.
  r.workerReplaced();
  assert.equal(r.growth(260 * MB, 1), 0);
  assert.equal(r.growth(270 * MB, 1), 10 * MB);
  // With none open the baseline is the lowest ever seen with none open, kept across replacements.
  assert.equal(r.growth(215 * MB, 0), 35 * MB);
  assert.equal(r.growth(170 * MB, 0), 0);
  assert.equal(r.growth(175 * MB, 0), 5 * MB);
});

test('a worker replaced after a large document: later documents get the same diagnostics', async () => {
  const small = readFileSync(join(ROOT, 'examples/gpt2_train/train.py'), 'utf8');
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-wmem-'));
  const c = new LspClient();
  c.settings = { target: { device: 't4' } };
  try {
    await c.initialize();
    const a = c.open(join(dir, 'a.py'), small);
    const before = await c.diagnostics(a, 30_000);
    c.closeDocument(a);
    // About 2 MB of Python: its parse takes tree-sitter's wasm memory past the replacement limit.
    const big = c.open(join(dir, 'big.py'), small.repeat(Math.ceil(2_000_000 / small.length)));
    await c.diagnostics(big, 60_000);
    c.closeDocument(big);
    const until = Date.now() + 20_000;
    while (!/analysis worker replaced/.test(c.log) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    assert.match(c.log, /analysis worker replaced to return its memory/);
    const b = c.open(join(dir, 'b.py'), small);
    const after = await c.diagnostics(b, 30_000);
    const strip = (ds: typeof before) => ds.map((d) => ({ code: d.code, message: d.message, range: d.range }));
    assert.deepEqual(strip(after), strip(before));
  } finally {
    await c.close();
  }
});
