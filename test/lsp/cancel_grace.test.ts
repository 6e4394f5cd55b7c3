// A cancelled analysis that does not stop (its document closed, or superseded by an edit) must not hold the
// documents behind it: after CANCEL_GRACE_MS its worker is ended and the queue goes on with a fresh one
// (server/src/lsp/analysisWorker.ts). The run that ignores its cancel flag is injected (OOMLENS_TEST_FAULT=hang
// spins on a text that asks for it); without the grace period the second document would never get diagnostics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LspClient, ROOT } from './harness';

const small = readFileSync(join(ROOT, 'examples/gpt2_train/train.py'), 'utf8');

test('a closed document whose analysis does not stop: the next document still gets its diagnostics', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-grace-'));
  const c = new LspClient({ OOMLENS_TEST_FAULT: 'hang' });
  c.settings = { target: { device: 't4' } };
  try {
    await c.initialize();
    const ref = c.open(join(dir, 'ref.py'), small);
    const before = await c.diagnostics(ref, 30_000);
    c.closeDocument(ref);
    const stuck = c.open(join(dir, 'stuck.py'), `# OOMLENS_TEST_HANG\n${small}`);
    await new Promise((r) => setTimeout(r, 500));
    c.closeDocument(stuck);
    const b = c.open(join(dir, 'b.py'), small);
    const after = await c.diagnostics(b, 15_000);
    assert.match(c.log, /a cancelled analysis of file:.*stuck\.py did not stop within 1000 ms; its worker is replaced/);
    const strip = (ds: typeof before) => ds.map((d) => ({ code: d.code, message: d.message, range: d.range }));
    assert.deepEqual(strip(after), strip(before));
  } finally {
    await c.close();
  }
});

test('an edit superseding an analysis that does not stop: the edited text is analysed on a fresh worker', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-grace-'));
  const c = new LspClient({ OOMLENS_TEST_FAULT: 'hang' });
  c.settings = { target: { device: 't4' } };
  try {
    await c.initialize();
    const ref = c.open(join(dir, 'ref.py'), small);
    const before = await c.diagnostics(ref, 30_000);
    // An open document (not ref.py) kept open across the replacement: the fresh worker must be given its text.
    const doc = c.open(join(dir, 'doc.py'), `# OOMLENS_TEST_HANG\n${small}`);
    await new Promise((r) => setTimeout(r, 500));
    // Delete the first line: the text is now ref.py's, which the fresh worker analyses.
    c.edit(doc, 0, doc.text.indexOf('\n') + 1, '');
    const after = await c.diagnostics(doc, 15_000);
    const strip = (ds: typeof before) => ds.map((d) => ({ code: d.code, message: d.message, range: d.range }));
    assert.deepEqual(strip(after), strip(before));
    assert.match(c.log, /did not stop within 1000 ms; its worker is replaced/);
  } finally {
    await c.close();
  }
});
