/**
 * `textDocument/didOpen`, `didChange`, `didClose`: keeps the document store
 * in step with the editor. Opening analyses at once; typing is debounced.
 * Closing clears the document's diagnostics so nothing stale remains.
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { TreeEdit } from '../workerProtocol';
import type { OomlensServer } from '../server';
import { changeParams, docUri, openParams } from '../validate';

export function registerDocumentSync(server: OomlensServer): void {
  const c = server.connection;
  c.onDidOpenTextDocument((params) => {
    const t = openParams(params);
    if (!t) { server.log('oomlens: ignored a malformed textDocument/didOpen'); return; }
    if (t.languageId !== 'python') return;
    server.schedule(server.store.open(t.uri, t.languageId, t.version, t.text), 0);
  });
  c.onDidChangeTextDocument((params) => {
    const p = changeParams(params);
    if (!p) { server.log('oomlens: ignored a malformed textDocument/didChange'); return; }
    const s = server.store.get(p.uri);
    if (!s) return;
    const { doc, edits } = applyChanges(s.doc, p.changes, p.version);
    s.doc = doc;
    server.analyses.edit(p.uri, edits);
    server.schedule(s);
    server.scheduleDependents(s);
  });
  c.onDidCloseTextDocument((params) => {
    let uri: string;
    try { uri = docUri(params); } catch { server.log('oomlens: ignored a malformed textDocument/didClose'); return; }
    if (!server.store.get(uri)) return;
    server.store.close(uri);
    server.analyses.close(uri);
    void c.sendDiagnostics({ uri, diagnostics: [] });
  });
}

type Change = Parameters<typeof TextDocument.update>[1][number];

/**
 * Applies didChange content changes to `doc` (updated in place, as
 * `TextDocument.update` does) and returns each as a tree-sitter edit against
 * the text it applies to, so the worker can reparse incrementally. The old
 * offsets and positions are read before each change is applied.
 */
export function applyChanges(doc: TextDocument, changes: Change[], version: number): { doc: TextDocument; edits: TreeEdit[] } {
  const edits: TreeEdit[] = [];
  for (const ch of changes) {
    if ('range' in ch) {
      const a = doc.offsetAt(ch.range.start), b = doc.offsetAt(ch.range.end);
      const start = Math.min(a, b), oldEnd = Math.max(a, b); // a reversed range is applied as its well-formed one
      const startPos = doc.positionAt(start), oldEndPos = doc.positionAt(oldEnd);
      doc = TextDocument.update(doc, [ch], version);
      const newEnd = start + ch.text.length, newEndPos = doc.positionAt(newEnd);
      edits.push({
        startIndex: start, oldEndIndex: oldEnd, newEndIndex: newEnd,
        startPosition: { row: startPos.line, column: startPos.character }, oldEndPosition: { row: oldEndPos.line, column: oldEndPos.character },
        newEndPosition: { row: newEndPos.line, column: newEndPos.character },
      });
    } else {
      const oldLength = doc.getText().length, end = doc.positionAt(oldLength);
      doc = TextDocument.update(doc, [ch], version);
      const newEnd = doc.positionAt(ch.text.length);
      edits.push({ startIndex: 0, oldEndIndex: oldLength, newEndIndex: ch.text.length, startPosition: { row: 0, column: 0 }, oldEndPosition: { row: end.line, column: end.character }, newEndPosition: { row: newEnd.line, column: newEnd.character } });
    }
  }
  return { doc, edits };
}
