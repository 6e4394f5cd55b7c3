// The keystroke path: ranged didChange edits are applied to the worker's
// tree (tree.edit + incremental reparse). After a burst of edits, the
// diagnostics and hover must equal those of the same final text opened
// fresh — a wrong edit would leave a tree that disagrees with the text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LspClient, ROOT } from './harness';

const strip = (ds: Array<{ code?: unknown; message: unknown; range: unknown }>) => ds.map((d) => ({ code: d.code, message: d.message, range: d.range }));

test('incremental edits give the same diagnostics as a fresh open of the final text', async () => {
  const text = readFileSync(join(ROOT, 'examples/gpt2_train/train.py'), 'utf8');
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-incr-'));
  const c = new LspClient();
  c.settings = { target: { device: 't4' } };
  try {
    await c.initialize();
    const d = c.open(join(dir, 'a.py'), text);
    await c.diagnostics(d);
    // A burst: insert a comment line at the top, type a statement in the middle character by character,
    // delete it again partly, add non-ASCII text, and change a number — without waiting in between.
    c.edit(d, 0, 0, '# edited — été\n');
    const mid = d.text.indexOf('\n', Math.floor(d.text.length / 2)) + 1;
    let at = mid;
    for (const ch of 'zz = [1, 2]\n') { c.edit(d, at, at, ch); at++; }
    c.edit(d, mid, mid + 2, 'yy');
    const m = /\d{3,}/.exec(d.text);
    if (m) c.edit(d, m.index, m.index + 1, String((Number(m[0][0]) % 9) + 1));
    const after = strip(await c.diagnostics(d, 30_000));
    const fresh = c.open(join(dir, 'b.py'), d.text);
    const expected = strip(await c.diagnostics(fresh, 30_000));
    assert.deepEqual(after, expected);
  } finally {
    await c.close();
  }
});
