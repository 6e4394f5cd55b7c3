// Notebooks over LSP notebook document sync, against the bundled server
// over stdio: the code cells are analysed in order as one program, and
// each cell gets its own diagnostics, lens and hover at cell-relative
// positions; an edit to one cell re-analyses the notebook; the output
// channel logs each analysis.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { LspClient, ROOT } from './harness';

describe('notebooks over LSP', () => {
  let c: LspClient;
  const published = new Map<string, PublishDiagnosticsParams>();
  before(async () => {
    c = new LspClient();
    c.settings = { target: { device: 'a100-40gb' } };
    c.conn.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => { published.set(p.uri, p); });
    await c.initialize();
  });
  after(async () => { await c.close(); });

  const waitFor = async (uri: string, pred: (p: PublishDiagnosticsParams) => boolean) => {
    for (let i = 0; i < 300; i++) {
      const p = published.get(uri);
      if (p && pred(p)) return p;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`no diagnostics for ${uri}: ${JSON.stringify(published.get(uri))}\n${c.log}`);
  };

  it('a model built in one cell and loaded in another: diagnostic, lens and hover in the right cell', async () => {
    const nb = pathToFileURL(join(ROOT, 'test', 'nb-lsp.ipynb')).href;
    const cell = (i: number) => `vscode-notebook-cell:${nb.slice('file:'.length)}#W${i}`;
    const texts = ['from transformers import AutoModelForCausalLM\n', '%pip install transformers\nmodel = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1")\n'];
    await c.conn.sendNotification('notebookDocument/didOpen', {
      notebookDocument: { uri: nb, notebookType: 'jupyter-notebook', version: 1, cells: texts.map((_, i) => ({ kind: 2, document: cell(i) })) },
      cellTextDocuments: texts.map((text, i) => ({ uri: cell(i), languageId: 'python', version: 1, text })),
    });
    const p = await waitFor(cell(1), (x) => x.diagnostics.length > 0);
    const d = p.diagnostics.find((x) => x.code === 'OOM201');
    assert.ok(d, JSON.stringify(p.diagnostics));
    // Line 1 of the second cell (0-based), where from_pretrained is.
    assert.equal(d.range.start.line, 1);
    assert.equal((await waitFor(cell(0), () => true)).diagnostics.length, 0);

    const doc = { uri: cell(1), version: 1, text: texts[1] };
    const lenses = await c.codeLens(doc);
    assert.equal(lenses.length, 1);
    assert.equal(lenses[0].range.start.line, 1);
    assert.match(lenses[0].command?.title ?? '', /Mistral|params/);
    const h = await c.hover(doc, { line: 1, character: 12 });
    assert.match((h?.contents as { value: string } | undefined)?.value ?? '', /\| &nbsp;load&nbsp;&nbsp; \|/);
    assert.equal((await c.codeLens({ uri: cell(0), version: 1, text: texts[0] })).length, 0);

    // The fix applies inside the cell.
    const actions = await c.codeActions(doc, [d]);
    const edit = actions.find((a) => /float16|bfloat16/.test(a.title))?.edit?.changes?.[cell(1)];
    assert.ok(edit && edit[0].range.start.line === 1, JSON.stringify(actions));

    // Editing the first cell so the import is gone: the second cell's finding goes.
    await c.conn.sendNotification('notebookDocument/didChange', {
      notebookDocument: { uri: nb, version: 2 },
      change: { cells: { textContent: [{ document: { uri: cell(0), version: 2 }, changes: [{ text: 'import os\n' }] }] } },
    });
    await waitFor(cell(1), (x) => !x.diagnostics.some((y) => y.code === 'OOM201'));
    assert.match(c.log, /analysed .*nb-lsp\.ipynb \(notebook, 2 code cells\) in \d+ ms: 1 model/);
  });
});
