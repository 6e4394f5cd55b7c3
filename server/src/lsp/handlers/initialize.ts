/** `initialize`: records client capabilities and declares what the server answers. */
import { CodeActionKind, TextDocumentSyncKind } from 'vscode-languageserver';
import type { OomlensServer } from '../server';
import { NOTEBOOK_SELECTOR } from '../notebooks';
import { FIX_ALL_KIND } from './codeAction';
import { COMMAND_SHOW_DOCS, COMMAND_SHOW_TIMELINE } from './executeCommand';
import { COMMAND_DECLARE } from './declare';

export function registerInitialize(server: OomlensServer): void {
  server.connection.onInitialize((params) => {
    server.clientCaps = params.capabilities;
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        notebookDocumentSync: { notebookSelector: NOTEBOOK_SELECTOR },
        hoverProvider: true,
        codeLensProvider: { resolveProvider: false },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
        executeCommandProvider: { commands: [COMMAND_SHOW_DOCS, COMMAND_SHOW_TIMELINE, COMMAND_DECLARE] },
      },
      serverInfo: { name: 'oomlens', version: '0.1.0' },
    };
  });
}
