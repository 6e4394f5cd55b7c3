/**
 * The "oomlens" commands: pick target device, restart server, show logs,
 * show memory timeline (a webview drawing the server's Vega-Lite charts, timeline.ts).
 */
import * as vscode from 'vscode';
import type { OomlensClient } from './client';
import type { DeviceStatus } from './status';
import { TimelinePanel } from './timeline';
import type { TimelineContent } from './timelineHtml';
import { withPyprojectDevice } from './pyproject';

interface DeviceItem { id: string; name: string; capacity: string }

const COUNTS = [1, 2, 4, 8];

export function registerCommands(context: vscode.ExtensionContext, client: OomlensClient, status: DeviceStatus, output: vscode.LogOutputChannel): void {
  const reg = (id: string, fn: (...args: unknown[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  };

  reg('oomlens.pickDevice', async () => {
    const lc = client.client;
    if (!lc) return;
    const { devices } = await lc.sendRequest<{ devices: DeviceItem[] }>('oomlens/listDevices');
    const items: vscode.QuickPickItem[] = [];
    for (const n of COUNTS) {
      items.push({ label: n === 1 ? 'Single device' : `${n} devices`, kind: vscode.QuickPickItemKind.Separator });
      for (const d of devices) items.push({ label: n === 1 ? d.name : `${n}× ${d.name}`, description: n === 1 ? d.id : `${n}x${d.id}`, detail: `${d.capacity} per device` });
    }
    const qp = vscode.window.createQuickPick();
    qp.items = items;
    // Typing an id ("h100", "8xa100-80gb") finds it as well as the name.
    qp.matchOnDescription = true;
    qp.placeholder = 'Target device (or type e.g. 16xh100-80gb)';
    const choice = await new Promise<string | undefined>((resolve) => {
      qp.onDidAccept(() => {
        const sel = qp.selectedItems[0];
        resolve(sel?.description ?? (qp.value.trim() || undefined));
        qp.hide();
      });
      qp.onDidHide(() => resolve(undefined));
      qp.show();
    });
    qp.dispose();
    if (!choice) return;
    const now = status.current();
    if (now?.pyproject && now.source !== 'setting') {
      // pyproject.toml sets the device: the pick must win over it, in one of two places.
      const edit = 'Edit [tool.oomlens] device in pyproject.toml';
      const ws = 'Use for this workspace (overrides pyproject.toml)';
      const where = await vscode.window.showQuickPick([edit, ws], { placeHolder: `${vscode.workspace.asRelativePath(now.pyproject)} sets device = "${now.device}"` });
      if (!where) return;
      if (where === edit) {
        await setPyprojectDevice(now.pyproject, choice);
        return;
      }
    }
    // Writing the workspace setting fires didChangeConfiguration, which
    // re-analyses every open file on the server; a workspace value wins over pyproject.toml.
    await vscode.workspace.getConfiguration('oomlens').update('target.device', choice, vscode.ConfigurationTarget.Workspace);
    status.update();
  });

  reg('oomlens.restartServer', async () => {
    await client.restart();
  });

  reg('oomlens.showLogs', () => output.show());

  const timeline = new TimelinePanel(context.extensionUri, output);
  context.subscriptions.push(timeline);

  reg('oomlens.showTimeline', async (uri?: unknown, position?: unknown) => {
    const lc = client.client;
    const editor = vscode.window.activeTextEditor;
    if (!lc) return;
    const u = typeof uri === 'string' ? uri : editor?.document.uri.toString();
    const pos = (position as { line: number; character: number } | undefined) ?? (editor ? { line: editor.selection.active.line, character: editor.selection.active.character } : undefined);
    if (!u || !pos) return;
    const r = await lc.sendRequest<{ view: TimelineContent['view'] | null; title: string | null }>('oomlens/showTimeline', { uri: u, position: pos });
    if (!r.view) {
      void vscode.window.showInformationMessage('oomlens: no model in this file.');
      return;
    }
    timeline.show({ view: r.view, title: r.title ?? 'Memory timeline' });
  });
}

async function setPyprojectDevice(path: string, device: string): Promise<void> {
  const uri = vscode.Uri.file(path);
  const doc = await vscode.workspace.openTextDocument(uri);
  const edit = new vscode.WorkspaceEdit();
  edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), withPyprojectDevice(doc.getText(), device));
  await vscode.workspace.applyEdit(edit);
  await doc.save();
}
