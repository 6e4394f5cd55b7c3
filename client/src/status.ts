/**
 * The language-status item for Python files: the target device in effect
 * for the active file and where it comes from (a workspace setting,
 * `[tool.oomlens] device` in pyproject.toml, or the user's / default
 * setting), as the server reports it after each analysis (`oomlens/status`).
 * Clicking it runs "oomlens: Pick target device".
 */
import * as vscode from 'vscode';

/** `oomlens/status` and the configuration marker, as declared in server/src/protocol.ts (the client builds on its own). */
export const StatusNotification = 'oomlens/status';
export const DEVICE_SET_IN = 'deviceSetIn';
export interface StatusParams { uri: string; device: string; deviceName: string; source: 'setting' | 'pyproject' | 'default'; pyproject?: string; problems: string[] }

export class DeviceStatus implements vscode.Disposable {
  private readonly item = vscode.languages.createLanguageStatusItem('oomlens.device', [{ language: 'python' }, { notebookType: 'jupyter-notebook', language: 'python' }]);
  private readonly subs: vscode.Disposable[] = [];
  /** The last status the server sent for each document. */
  private readonly byUri = new Map<string, StatusParams>();

  constructor() {
    this.item.name = 'oomlens target device';
    this.item.command = { title: 'Pick device', command: 'oomlens.pickDevice' };
    this.update();
    this.subs.push(vscode.window.onDidChangeActiveTextEditor(() => this.update()));
    this.subs.push(vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('oomlens.target.device')) this.update(); }));
  }

  /** From the server: the device in effect for one document. */
  set(p: StatusParams): void {
    this.byUri.set(p.uri, p);
    this.update();
  }

  /** The status of the active document, if the server has analysed it. */
  current(): StatusParams | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri.toString();
    return uri ? this.byUri.get(uri) : undefined;
  }

  update(): void {
    const p = this.current();
    if (!p) {
      const device = vscode.workspace.getConfiguration('oomlens', vscode.window.activeTextEditor?.document.uri).get<string>('target.device', 'a100-80gb');
      this.item.text = `$(server) ${device}`;
      this.item.detail = 'oomlens target (not analysed yet)';
      return;
    }
    this.item.text = `$(server) ${p.deviceName}`;
    this.item.detail = p.source === 'pyproject' ? 'from pyproject.toml [tool.oomlens]'
      : p.source === 'setting' ? 'from the workspace setting oomlens.target.device'
      : 'from the oomlens.target.device setting (user or default)';
    this.item.severity = p.problems.length ? vscode.LanguageStatusSeverity.Warning : vscode.LanguageStatusSeverity.Information;
  }

  dispose(): void {
    this.item.dispose();
    for (const s of this.subs) s.dispose();
  }
}
