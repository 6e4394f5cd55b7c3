/**
 * `textDocument/didOpen`, `didChange`, `didClose`: keeps the document store
 * in step with the editor. Opening analyses at once; typing is debounced.
 * Closing clears the document's diagnostics so nothing stale remains.
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
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
    s.doc = TextDocument.update(s.doc, p.changes, p.version);
    server.schedule(s);
  });
  c.onDidCloseTextDocument((params) => {
    let uri: string;
    try { uri = docUri(params); } catch { server.log('oomlens: ignored a malformed textDocument/didClose'); return; }
    if (!server.store.get(uri)) return;
    server.store.close(uri);
    void c.sendDiagnostics({ uri, diagnostics: [] });
  });
}
