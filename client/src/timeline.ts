/**
 * The memory timeline view: a webview panel drawing the charts the server
 * builds for a model (request `oomlens/showTimeline`) with the bundled
 * vega-lite/vega script (dist/timelineView.js). Scripts run, but only that
 * one (CSP nonce, timelineHtml.ts); forms and command links are off and
 * only the extension's dist folder can be loaded. The page posts
 * `{ type: 'open', uri, line }` when a band is clicked (the panel opens that
 * line beside it) and `{ type: 'error' }` when it cannot draw (logged). One
 * panel is reused.
 */
import * as vscode from 'vscode';
import { timelineHtml, type TimelineContent } from './timelineHtml';

export class TimelinePanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  constructor(private readonly extensionUri: vscode.Uri, private readonly output: vscode.LogOutputChannel) {}

  show(content: Pick<TimelineContent, 'title' | 'view'>): void {
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('oomlens.timeline', content.title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
        enableScripts: true,
        enableForms: false,
        enableCommandUris: false,
        localResourceRoots: [dist],
        retainContextWhenHidden: false,
      });
      this.panel.onDidDispose(() => { this.panel = undefined; });
      this.panel.webview.onDidReceiveMessage((m: unknown) => { void this.onMessage(m); });
    } else {
      this.panel.reveal(vscode.ViewColumn.Beside, true);
    }
    const webview = this.panel.webview;
    this.panel.title = content.title;
    webview.html = timelineHtml({
      ...content,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'timelineView.js')).toString(),
      cspSource: webview.cspSource,
    });
  }

  private async onMessage(m: unknown): Promise<void> {
    if (typeof m !== 'object' || m === null) return;
    const msg = m as { type?: unknown; uri?: unknown; line?: unknown; message?: unknown };
    if (msg.type === 'error') { this.output.error(`timeline webview: ${String(msg.message)}`); return; }
    if (msg.type !== 'open' || typeof msg.uri !== 'string' || typeof msg.line !== 'number' || !Number.isInteger(msg.line) || msg.line < 0) return;
    let uri: vscode.Uri;
    try { uri = vscode.Uri.parse(msg.uri, true); } catch { return; }
    // Only files of this machine (the server names the analysed file or a workspace import).
    if (uri.scheme !== 'file' && uri.scheme !== 'vscode-notebook-cell' && uri.scheme !== 'untitled') return;
    const pos = new vscode.Position(msg.line, 0);
    // The editor beside the panel (where the lens was clicked), else a new one.
    const visible = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
    const editor = await vscode.window.showTextDocument(uri, { viewColumn: visible?.viewColumn ?? vscode.ViewColumn.One, selection: new vscode.Range(pos, pos), preserveFocus: false });
    editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  dispose(): void {
    this.panel?.dispose();
    this.panel = undefined;
  }
}
