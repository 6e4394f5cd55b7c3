/**
 * VS Code entry point: starts the language client, the status item and the
 * commands, and stops them on deactivation. Everything else is on the server.
 */
import * as vscode from 'vscode';
import { OomlensClient } from './client';
import { registerCommands } from './commands';
import { DeviceStatus } from './status';

let client: OomlensClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('oomlens', { log: true });
  const status = new DeviceStatus();
  client = new OomlensClient(context, output, status);
  context.subscriptions.push(output, status);
  registerCommands(context, client, status, output);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
