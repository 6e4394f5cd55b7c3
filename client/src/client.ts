/**
 * Starts and restarts the language server (bundled dist/server.js over IPC)
 * with vscode-languageclient, ruff-vscode style: the client only wires
 * things up; every decision is the server's.
 */
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

export class OomlensClient {
  client: LanguageClient | undefined;

  constructor(private readonly context: vscode.ExtensionContext, private readonly output: vscode.LogOutputChannel) {}

  async start(): Promise<void> {
    const module = this.context.asAbsolutePath('dist/server.js');
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc },
      debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6009'] } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ language: 'python' }],
      outputChannel: this.output,
      traceOutputChannel: this.output,
      synchronize: {
        // Sends didChangeConfiguration on any oomlens.* change; the server
        // then pulls per-document configuration again.
        configurationSection: 'oomlens',
        // pyproject.toml (settings, declarations), the workspace's Python files (imported modules, the
        // programs that build a file's models) and the config files programs read.
        fileEvents: [
          vscode.workspace.createFileSystemWatcher('**/pyproject.toml'),
          vscode.workspace.createFileSystemWatcher('**/*.py'),
          vscode.workspace.createFileSystemWatcher('**/*.{json,yaml,yml,toml}'),
        ],
      },
    };
    this.client = new LanguageClient('oomlens', 'oomlens', serverOptions, clientOptions);
    await this.client.start();
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) await c.stop();
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
}
