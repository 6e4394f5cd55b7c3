/**
 * The page of the memory timeline webview, kept free of `vscode` so a test
 * can check it: the charts the server built (JSON, read by the page's
 * script, never executed), the bundled script (dist/timelineView.js,
 * client/webview/timeline.ts) and a strict Content-Security-Policy: only
 * that script (by nonce) runs, only the page's own style sheet applies, no
 * eval, nothing remote, nothing but the extension's dist folder is loaded.
 */
import { randomBytes } from 'node:crypto';

export interface TimelineContent {
  title: string;
  /** The server's TimelineView (server/src/timeline/view.ts), passed through as JSON. */
  view: { title: string; caption: string; phases: unknown[]; initial: number };
  /** The webview URI of dist/timelineView.js. */
  scriptUri: string;
  /** The webview's cspSource (the origin its local resources are served from). */
  cspSource: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** JSON that can sit inside a <script> element: no "</script", no "<!--", no line separators. */
export function jsonForScript(v: unknown): string {
  return JSON.stringify(v).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** The page for one model's timeline (exported for the unit checks). */
export function timelineHtml(content: TimelineContent, nonce = randomBytes(16).toString('base64')): string {
  const csp = `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src ${content.cspSource} data:;`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(content.title)}</title>
<style nonce="${nonce}">
  body { margin: 0; padding: 10px 12px; background: var(--vscode-editor-background); color: var(--vscode-foreground); font-family: var(--vscode-font-family, sans-serif); font-size: 13px; }
  h1 { font-size: 14px; margin: 0 0 4px; font-weight: 600; }
  h2 { font-size: 13px; margin: 0 0 2px; font-weight: 600; }
  h2.bad { color: var(--vscode-errorForeground, #d00000); }
  #notes { margin: 0 0 6px; padding-left: 18px; font-size: 12px; opacity: 0.85; }
  p.caption { margin: 0 0 8px; opacity: 0.8; font-size: 12px; }
  #phases { display: flex; flex-wrap: wrap; gap: 6px; margin: 0 0 8px; }
  #phases button { font: inherit; font-size: 12px; padding: 3px 10px; border-radius: 3px; cursor: pointer; border: 1px solid var(--vscode-button-border, transparent);
    color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); }
  #phases button[aria-pressed="true"] { color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
  /* The chart follows the panel's width (Vega-Lite width "container"), on a light card in any theme. */
  .card { background: #fff; color: #111; border-radius: 4px; padding: 8px; box-sizing: border-box; width: 100%; min-width: 300px; }
  #chart { width: 100%; }
  #chart svg { display: block; }
  #tooltip { position: fixed; z-index: 10; max-width: min(420px, 90vw); padding: 6px 8px; border-radius: 3px; pointer-events: none; font-size: 12px;
    background: var(--vscode-editorHoverWidget-background, #f3f3f3); color: var(--vscode-editorHoverWidget-foreground, #111); border: 1px solid var(--vscode-editorHoverWidget-border, #999); }
  #tooltip table { border-collapse: collapse; }
  #tooltip th { text-align: left; padding: 1px 8px 1px 0; font-weight: 600; white-space: nowrap; vertical-align: top; }
  #tooltip td { padding: 1px 0; word-break: break-word; }
  #tooltip .hint { margin-top: 4px; opacity: 0.75; }
  p.hint { opacity: 0.75; font-size: 12px; }
</style>
</head>
<body>
<h1>${escapeHtml(content.view.title)}</h1>
<p class="caption">${escapeHtml(content.view.caption)}</p>
<div id="phases" role="group" aria-label="phase"></div>
<h2 id="heading"></h2>
<ul id="notes"></ul>
<div class="card"><div id="chart"></div></div>
<div id="tooltip" role="tooltip" hidden></div>
<p class="hint">Hover a band for its contributor, size and source line; click it to go to that line. The panel follows the lens you click.</p>
<script type="application/json" id="oomlens-data">${jsonForScript(content.view)}</script>
<script nonce="${nonce}" src="${escapeHtml(content.scriptUri)}"></script>
</body>
</html>`;
}
