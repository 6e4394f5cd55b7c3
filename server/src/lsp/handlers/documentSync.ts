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
    // Each change as a tree-sitter edit against the text it applies to, so the worker reparses incrementally.
    const edits: TreeEdit[] = [];
    for (const ch of p.changes) {
      const before = s.doc;
      s.doc = TextDocument.update(s.doc, [ch], p.version);
      if ('range' in ch) {
        const start = before.offsetAt(ch.range.start), oldEnd = before.offsetAt(ch.range.end);
        const startPos = before.positionAt(start), oldEndPos = before.positionAt(oldEnd);
        const newEnd = start + ch.text.length, newEndPos = s.doc.positionAt(newEnd);
        edits.push({
          startIndex: start, oldEndIndex: oldEnd, newEndIndex: newEnd,
          startPosition: { row: startPos.line, column: startPos.character }, oldEndPosition: { row: oldEndPos.line, column: oldEndPos.character },
          newEndPosition: { row: newEndPos.line, column: newEndPos.character },
        });
      } else {
        const end = before.positionAt(before.getText().length), newEnd = s.doc.positionAt(ch.text.length);
        edits.push({ startIndex: 0, oldEndIndex: before.getText().length, newEndIndex: ch.text.length, startPosition: { row: 0, column: 0 }, oldEndPosition: { row: end.line, column: end.character }, newEndPosition: { row: newEnd.line, column: newEnd.character } });
      }
    }
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
