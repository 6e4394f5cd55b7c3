/**
 * The page of the memory timeline webview, kept free of `vscode` so a test
 * can check it: the SVG the server drew, inlined under a strict
 * Content-Security-Policy that allows no script, no remote or local
 * resource, and only the page's own nonce'd style sheet.
 */
import { randomBytes } from 'node:crypto';

export interface TimelineContent { svg: string; title: string }

/** The page for one SVG, with a strict CSP (exported for the e2e and unit checks). */
export function timelineHtml(content: TimelineContent, nonce = randomBytes(16).toString('base64')): string {
  const csp = `default-src 'none'; style-src 'nonce-${nonce}'; img-src data:;`;
  const title = content.title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  // Only a plain <svg> document is inlined (the CSP would block scripts anyway); anything else is refused.
  const plain = /^\s*<svg[\s>]/.test(content.svg) && !/<script|<foreignObject|<iframe|\son[a-z]+\s*=|javascript:/i.test(content.svg);
  const svg = plain ? content.svg : '<p>oomlens: the server sent no picture that can be shown.</p>';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${title}</title>
<style nonce="${nonce}">
  body { margin: 0; padding: 12px; background: var(--vscode-editor-background); color: var(--vscode-foreground); font-family: var(--vscode-font-family, sans-serif); }
  /* The picture keeps its drawn size (text 11 px and up) and scrolls sideways in a narrow panel:
     scaled to a 400 px half-width panel its text would shrink to about 5 px. */
  .card { display: block; background: #fff; border-radius: 4px; padding: 4px; max-width: 100%; width: fit-content; overflow-x: auto; box-sizing: border-box; }
  .card svg { display: block; max-width: none; }
  p.hint { opacity: 0.75; font-size: 12px; }
</style>
</head>
<body>
<div class="card">${svg}</div>
<p class="hint">Predicted from the source; nothing was run. Hover a band for its contributor. The panel follows the lens you click.</p>
</body>
</html>`;
}
