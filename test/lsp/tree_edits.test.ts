// Each didChange becomes a tree-sitter edit measured against the text it
// applies to (TextDocument.update changes the document in place, so the old
// offsets must be read before it). A wrong edit makes the worker's tree
// disagree with the text, or forces a full reparse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { applyChanges } from '../../server/src/lsp/handlers/documentSync';

const pos = (text: string, off: number) => { const b = text.slice(0, off).split('\n'); return { row: b.length - 1, column: b[b.length - 1].length }; };

test('multi-line ranged changes give edits in the old text, chained change by change', () => {
  const text = 'import torch\nx = torch.zeros((4, 4))\n\ny = x + 1\n';
  const doc = TextDocument.create('file:///a.py', 'python', 1, text);
  const changes = [
    // Delete from line 0 col 6 to line 3 col 1: spans lines, and the new line 3 does not exist.
    { range: { start: { line: 0, character: 6 }, end: { line: 3, character: 1 } }, text: '' },
    // Then a reversed range in the new text replaced by two lines.
    { range: { start: { line: 0, character: 9 }, end: { line: 0, character: 7 } }, text: 'a\nbc' },
  ];
  let cur = text;
  const expected = changes.map((c) => {
    const off = (p: { line: number; character: number }) => cur.split('\n').slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
    const [s, e] = [off(c.range.start), off(c.range.end)].sort((x, y) => x - y);
    const next = cur.slice(0, s) + c.text + cur.slice(e);
    const edit = { startIndex: s, oldEndIndex: e, newEndIndex: s + c.text.length, startPosition: pos(cur, s), oldEndPosition: pos(cur, e), newEndPosition: pos(next, s + c.text.length) };
    cur = next;
    return edit;
  });
  const { doc: after, edits } = applyChanges(doc, changes, 2);
  assert.equal(after.getText(), cur);
  assert.deepEqual(edits, expected);
});

test('a full-text change is an edit of the whole old text', () => {
  const doc = TextDocument.create('file:///a.py', 'python', 1, 'a = 1\nb = 2\n');
  const { edits } = applyChanges(doc, [{ text: 'c = 3' }], 2);
  assert.deepEqual(edits, [{ startIndex: 0, oldEndIndex: 12, newEndIndex: 5, startPosition: { row: 0, column: 0 }, oldEndPosition: { row: 2, column: 0 }, newEndPosition: { row: 0, column: 5 } }]);
});
