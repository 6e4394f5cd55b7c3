/**
 * Draws a timeline spec (view.ts) as a standalone SVG with Vega-Lite and
 * vega's headless SVG renderer: no browser, no canvas, no network (the spec
 * carries its data inline; the loader is never asked for anything). Used by
 * `oomlens check --format svg` and by the server command that writes the
 * timeline for editors without a webview.
 */
// Loaded on first use (and as ES modules: vega's Node build awaits at its top level, which `require` cannot).
const libs = () => Promise.all([import('vega-lite'), import('vega')]);

/** The SVG of a Vega-Lite spec. */
export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  const [{ compile }, { parse, View }] = await libs();
  // Warnings go nowhere: stdout carries the SVG and stderr is for the user's findings.
  const quiet = { level: () => quiet, error: () => quiet, warn: () => quiet, info: () => quiet, debug: () => quiet } as never;
  const vg = compile(spec as never, { logger: quiet }).spec;
  const view = new View(parse(vg), { renderer: 'none', logLevel: 0 });
  try {
    const svg = await view.toSVG();
    return svg.endsWith('\n') ? svg : svg + '\n';
  } finally {
    view.finalize();
  }
}
