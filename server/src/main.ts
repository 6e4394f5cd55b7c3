/**
 * Process entry of the language server: picks the transport from argv
 * (--stdio, --node-ipc, --socket=N; vscode-languageserver does that) and
 * starts the server class, which knows nothing about transports.
 */
import { ProposedFeatures, createConnection } from 'vscode-languageserver/node';
import { createServer } from './lsp/server';

createServer(createConnection(ProposedFeatures.all)).listen();
