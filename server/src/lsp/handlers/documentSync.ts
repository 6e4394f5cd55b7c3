/**
 * `textDocument/didOpen`, `didChange`, `didClose`: keeps the document store
 * in step with the editor. Opening analyses at once; typing is debounced.
 * Closing clears the document's diagnostics so nothing stale remains.
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { OomlensServer } from '../server';

export function registerDocumentSync(server: OomlensServer): void {
  const c = server.connection;
  c.onDidOpenTextDocument(({ textDocument: t }) => {
    if (t.languageId !== 'python') return;
    server.schedule(server.store.open(t.uri, t.languageId, t.version, t.text), 0);
  });
  c.onDidChangeTextDocument(({ textDocument, contentChanges }) => {
    const s = server.store.get(textDocument.uri);
    if (!s) return;
    s.doc = TextDocument.update(s.doc, contentChanges, textDocument.version);
    server.schedule(s);
  });
  c.onDidCloseTextDocument(({ textDocument }) => {
    if (!server.store.get(textDocument.uri)) return;
    server.store.close(textDocument.uri);
    void c.sendDiagnostics({ uri: textDocument.uri, diagnostics: [] });
  });
}
