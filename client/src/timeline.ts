/**
 * The memory timeline view: a webview panel showing the SVG the server
 * draws for a model (request `oomlens/showTimeline`). The page runs no
 * script and loads nothing: scripts, forms and command links are disabled,
 * local resources are off, and the page's CSP (timelineHtml.ts) allows only
 * its own nonce'd style sheet. One panel is reused.
 */
import * as vscode from 'vscode';
import { timelineHtml, type TimelineContent } from './timelineHtml';

export class TimelinePanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  show(content: TimelineContent): void {
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('oomlens.timeline', content.title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
        enableScripts: false,
        enableForms: false,
        enableCommandUris: false,
        localResourceRoots: [],
        retainContextWhenHidden: false,
      });
      this.panel.onDidDispose(() => { this.panel = undefined; });
    } else {
      this.panel.reveal(vscode.ViewColumn.Beside, true);
    }
    this.panel.title = content.title;
    this.panel.webview.html = timelineHtml(content);
  }

  dispose(): void {
    this.panel?.dispose();
    this.panel = undefined;
  }
}
