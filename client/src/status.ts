/**
 * The language-status item for Python files: shows the target device from
 * the settings; clicking it runs "oomlens: Pick target device".
 */
import * as vscode from 'vscode';

export class DeviceStatus implements vscode.Disposable {
  private readonly item = vscode.languages.createLanguageStatusItem('oomlens.device', { language: 'python' });
  private readonly sub: vscode.Disposable;

  constructor() {
    this.item.name = 'oomlens target device';
    this.update();
    this.sub = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('oomlens.target.device')) this.update();
    });
  }

  update(): void {
    const device = vscode.workspace.getConfiguration('oomlens', vscode.window.activeTextEditor?.document.uri).get<string>('target.device', 'a100-80gb');
    this.item.text = `$(server) ${device}`;
    this.item.detail = 'oomlens target';
    this.item.command = { title: 'Pick device', command: 'oomlens.pickDevice' };
  }

  dispose(): void {
    this.item.dispose();
    this.sub.dispose();
  }
}
