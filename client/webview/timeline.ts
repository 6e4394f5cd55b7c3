/**
 * The memory timeline webview's script (bundled to dist/timelineView.js for
 * the browser; client/src/timeline.ts loads it). It reads the charts the
 * server built (one Vega-Lite spec per phase, server/src/timeline/view.ts)
 * from the page, compiles the chosen phase with vega-lite and draws it with
 * vega's SVG renderer. Expressions are evaluated by vega-interpreter, not
 * compiled with `new Function`, so the page's CSP needs no 'unsafe-eval'.
 * Nothing is fetched: the specs carry their data inline.
 *
 * Hovering a band shows a tooltip (contributor, bytes at that step, the line
 * that created it, the step's line); clicking it asks the extension to open
 * that line; the buttons above the chart choose the phase.
 */
import { compile } from 'vega-lite';
import { parse, View } from 'vega';
import { expressionInterpreter } from 'vega-interpreter';

interface PhaseView { phase: string; heading: string; fits: boolean | null; notes: string[]; spec: Record<string, unknown> }
interface TimelineView { title: string; caption: string; phases: PhaseView[]; initial: number }
interface VsCodeApi { postMessage(m: unknown): void; getState(): unknown; setState(s: unknown): void }
declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
const data = JSON.parse(document.getElementById('oomlens-data')?.textContent ?? 'null') as TimelineView | null;
const chart = document.getElementById('chart') as HTMLDivElement;
const tabs = document.getElementById('phases') as HTMLDivElement;
const tip = document.getElementById('tooltip') as HTMLDivElement;
const heading = document.getElementById('heading') as HTMLHeadingElement;
const notes = document.getElementById('notes') as HTMLUListElement;
let view: View | undefined;

function hideTip(): void { tip.hidden = true; }

function showTip(event: MouseEvent, value: unknown): void {
  if (value === null || value === undefined || value === '') { hideTip(); return; }
  tip.replaceChildren();
  const rows = typeof value === 'object' ? Object.entries(value as Record<string, unknown>) : [['', value] as [string, unknown]];
  const table = document.createElement('table');
  for (const [k, v] of rows) {
    const tr = document.createElement('tr');
    const th = document.createElement('th');
    th.textContent = k;
    const td = document.createElement('td');
    td.textContent = String(v);
    tr.append(th, td);
    table.append(tr);
  }
  tip.append(table);
  const hint = document.createElement('div');
  hint.className = 'hint';
  hint.textContent = (value as { 'created at'?: string })['created at'] && (value as { 'created at'?: string })['created at'] !== 'several places' ? 'Click to go to the line that creates it.' : '';
  if (hint.textContent) tip.append(hint);
  tip.hidden = false;
  // Beside the pointer, kept inside the page.
  const pad = 12;
  const w = tip.offsetWidth;
  const h = tip.offsetHeight;
  let x = event.clientX + pad;
  let y = event.clientY + pad;
  if (x + w > window.innerWidth - 4) x = Math.max(4, event.clientX - pad - w);
  if (y + h > window.innerHeight - 4) y = Math.max(4, event.clientY - pad - h);
  tip.style.left = `${x}px`;
  tip.style.top = `${y}px`;
}

async function draw(index: number): Promise<void> {
  if (!data) return;
  const p = data.phases[index];
  if (!p) return;
  for (const b of tabs.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.index === String(index)));
  api.setState({ phase: index });
  chart.dataset.rendered = 'false';
  view?.finalize();
  hideTip();
  chart.replaceChildren();
  heading.textContent = p.heading;
  heading.className = p.fits === false ? 'bad' : '';
  notes.replaceChildren(...p.notes.map((n) => { const li = document.createElement('li'); li.textContent = n; return li; }));
  const vg = compile(p.spec as never).spec;
  view = new View(parse(vg, undefined, { ast: true }), { expr: expressionInterpreter, renderer: 'svg', container: chart, hover: true, logLevel: 1 });
  view.tooltip((_handler: unknown, event: MouseEvent, _item: unknown, value: unknown) => showTip(event, value));
  view.addEventListener('click', (_event, item) => {
    const d = (item as { datum?: { uri?: unknown; line?: unknown } } | null | undefined)?.datum;
    if (d && typeof d.uri === 'string' && typeof d.line === 'number') api.postMessage({ type: 'open', uri: d.uri, line: d.line });
  });
  await view.runAsync();
  chart.dataset.phase = p.phase;
  chart.dataset.rendered = 'true';
}

function start(): void {
  if (!data || data.phases.length === 0) {
    chart.textContent = 'No phase was traced for this model.';
    return;
  }
  data.phases.forEach((p, i) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.index = String(i);
    b.className = p.fits === false ? 'bad' : p.fits === null ? 'unknown' : 'ok';
    b.textContent = `${p.phase} ${p.fits === false ? '✗' : p.fits === null ? '?' : '✓'}`;
    b.title = p.heading;
    b.addEventListener('click', () => { void draw(i).catch(fail); });
    tabs.append(b);
  });
  const saved = (api.getState() as { phase?: number } | undefined)?.phase;
  const first = typeof saved === 'number' && saved < data.phases.length ? saved : data.initial;
  void draw(first).catch(fail);
}

function fail(e: unknown): void {
  chart.textContent = `oomlens: the timeline could not be drawn: ${(e as Error)?.message ?? String(e)}`;
  api.postMessage({ type: 'error', message: (e as Error)?.stack ?? String(e) });
}

document.addEventListener('mouseleave', hideTip);
start();
