/**
 * Starts and restarts the language server (bundled dist/server.js over IPC)
 * with vscode-languageclient, ruff-vscode style: the client only wires
 * things up; every decision is the server's.
 */
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { serverEnv } from './serverEnv';
import { DEVICE_SET_IN, StatusNotification, type DeviceStatus, type StatusParams } from './status';

export class OomlensClient {
  client: LanguageClient | undefined;

  constructor(private readonly context: vscode.ExtensionContext, private readonly output: vscode.LogOutputChannel, private readonly status?: DeviceStatus) {}

  async start(): Promise<void> {
    const module = this.context.asAbsolutePath('dist/server.js');
    const codeCache = vscode.Uri.joinPath(this.context.globalStorageUri, 'code-cache').fsPath;
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc, options: { env: serverEnv(process.env, codeCache) } },
      debug: { module, transport: TransportKind.ipc, options: { env: serverEnv(process.env), execArgv: ['--nolazy', '--inspect=6009'] } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ language: 'python' }],
      outputChannel: this.output,
      traceOutputChannel: this.output,
      middleware: {
        workspace: {
          // Tells the server where oomlens.target.device is set: for this workspace or folder (it then
          // wins over [tool.oomlens] device in pyproject.toml) or for the user (the project file wins).
          configuration: async (params, token, next) => {
            const res = await next(params, token);
            if (!Array.isArray(res)) return res;
            return res.map((r: unknown, i: number) => {
              const item = params.items[i];
              if (item?.section !== 'oomlens' || typeof r !== 'object' || r === null) return r;
              const ins = vscode.workspace.getConfiguration('oomlens', item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined).inspect<string>('target.device');
              const where = ins?.workspaceFolderValue !== undefined || ins?.workspaceValue !== undefined ? 'workspace' : ins?.globalValue !== undefined ? 'user' : undefined;
              const o = r as { target?: Record<string, unknown> };
              return where ? { ...o, target: { ...(o.target ?? {}), [DEVICE_SET_IN]: where } } : r;
            });
          },
        },
      },
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
          // Launch commands (server/src/program/launch.ts): shell scripts and Markdown code blocks.
          vscode.workspace.createFileSystemWatcher('**/*.{sh,bash,md}'),
        ],
      },
    };
    this.client = new LanguageClient('oomlens', 'oomlens', serverOptions, clientOptions);
    this.client.onNotification(StatusNotification, (p: StatusParams) => this.status?.set(p));
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
