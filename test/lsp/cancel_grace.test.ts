// A cancelled analysis that does not stop (its document closed, or superseded by an edit) must not hold the
// documents behind it: after CANCEL_GRACE_MS its worker is ended and the queue goes on with a fresh one
// (server/src/lsp/analysisWorker.ts). The run that ignores its cancel flag is injected (OOMLENS_TEST_FAULT=hang
// spins on a text that asks for it); without the grace period the second document would never get diagnostics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { ROOT, withHangingServer } from './harness';

const small = readFileSync(join(ROOT, 'examples/gpt2_train/train.py'), 'utf8');

const strip = (ds: Diagnostic[]) => ds.map((d) => ({ code: d.code, message: d.message, range: d.range }));


test('a closed document whose analysis does not stop: the next document still gets its diagnostics', () => withHangingServer(small, async (c, dir, reference) => {
  const stuck = c.open(join(dir, 'stuck.py'), `# OOMLENS_TEST_HANG\n${small}`);
  await new Promise((r) => setTimeout(r, 500));
  c.closeDocument(stuck);
  const b = c.open(join(dir, 'b.py'), small);
  const after = await c.diagnostics(b, 15_000);
  assert.match(c.log, /a cancelled analysis of file:.*stuck\.py did not stop within 1000 ms; its worker is replaced/);
  assert.deepEqual(strip(after), strip(reference));
}));

test('an edit superseding an analysis that does not stop: the edited text is analysed on a fresh worker', () => withHangingServer(small, async (c, dir, reference) => {
  // Kept open across the replacement: the fresh worker must be given its text again.
  const doc = c.open(join(dir, 'doc.py'), `# OOMLENS_TEST_HANG\n${small}`);
  await new Promise((r) => setTimeout(r, 500));
  // Delete the first line: the text is now the reference's, which the fresh worker analyses.
  c.edit(doc, 0, doc.text.indexOf('\n') + 1, '');
  const after = await c.diagnostics(doc, 15_000);
  assert.deepEqual(strip(after), strip(reference));
  assert.match(c.log, /did not stop within 1000 ms; its worker is replaced/);
}));
