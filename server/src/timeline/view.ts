/**
 * The memory timeline as Vega-Lite specs: one chart per phase of a model,
 * built from the engine's series (shared/src/timelineSeries.ts) and the
 * source text. The same spec is drawn by the VS Code webview (vega-lite and
 * vega bundled into dist/timelineView.js, client/src/timelineView/) and by
 * `oomlens check --format svg` (render.ts, vega's headless SVG renderer).
 * This module only builds JSON: it imports no charting code, so the server
 * can send the specs without loading vega.
 *
 * Each chart is a stack of rectangles, one per contributor and run of
 * program steps where its size and its place in the stack do not change:
 * x is the step (an event of the phase's trace, in program order), y the
 * bytes on the busiest device, in the unit the axis names. Every rectangle
 * carries its tooltip (contributor, bytes at that step, the line that
 * created it, the step's line) and the location a click opens.
 */
import { isAbsolute } from 'node:path';
import { displayName } from '../../../shared/src/devices';
import type { ModelFacts, Span } from '../../../shared/src/facts';
import { phaseSeries, type PhaseSeries } from '../../../shared/src/timelineSeries';
import type { Estimate, PhaseEstimate, Units } from '../../../shared/src/types';
import { formatBytes } from '../../../shared/src/units';

/** A source location as the timeline shows it: where to go on a click, and how to name it. */
export interface Located {
  /** file: URI of the file. */
  uri: string;
  /** 0-based line. */
  line: number;
  /** "edit.py:14" */
  where: string;
  /** The line's text, trimmed and shortened; empty when the text is not at hand. */
  text: string;
}

export type Locate = (span: Span | undefined) => Located | undefined;

export interface PhaseView {
  phase: string;
  /** "load: peak 27.0 GB of 32.2 GB usable · ✗ does not fit" */
  heading: string;
  /** true fits, false does not, null unknown. */
  fits: boolean | null;
  /** Notes under the heading (the budget when it is off the scale, the engine's notes). */
  notes: string[];
  /** A Vega-Lite spec (plain JSON). */
  spec: Record<string, unknown>;
}

export interface TimelineView {
  title: string;
  /** What the chart shows, in one sentence (units, prediction). */
  caption: string;
  phases: PhaseView[];
  /** The phase to show first: the first that does not fit, else the one with the highest share of its budget. */
  initial: number;
}

/** Okabe–Ito colours (distinguishable with colour-vision deficiencies); grey for "other". */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#8C6D31'];
export const OTHER_COLOR = '#9E9E9E';
export const BUDGET_COLOR = '#D00000';
/** The smallest text the charts draw, in px (axis labels, legend, tooltips). */
export const MIN_FONT_PX = 11;

/** The axis unit: the largest of the chosen family's units not above `max`. */
export function axisUnit(max: number, units: Units): { name: string; size: number } {
  const steps = units === 'GB'
    ? [[1e12, 'TB'], [1e9, 'GB'], [1e6, 'MB'], [1e3, 'kB']] as const
    : [[2 ** 40, 'TiB'], [2 ** 30, 'GiB'], [2 ** 20, 'MiB'], [2 ** 10, 'KiB']] as const;
  for (const [size, name] of steps) if (max >= size) return { name, size };
  return { name: 'B', size: 1 };
}

const verdict = (fits: boolean | null): string => (fits === null ? '? unknown' : fits ? '✓ fits' : '✗ does not fit');

function shorten(s: string, n: number): string {
  const cps = [...s];
  return cps.length <= n ? s : cps.slice(0, Math.max(0, n - 1)).join('') + '…';
}

/** The name of a step on the time axis: its source line ("L14"), else its number in the phase. */
function stepName(at: Located | undefined, step: number): string {
  return at ? `L${at.line + 1}` : `#${step + 1}`;
}

/** One rectangle of the stack. */
interface Row {
  band: string; x0: number; x1: number; y0: number; y1: number;
  contributor: string; bytes: string; created: string; during: string;
  uri?: string; line?: number;
}

export interface SpecOptions {
  units: Units;
  /** Width of the plot in px, or 'container' to follow the page (the webview). */
  width: number | 'container';
  height?: number;
  /** Draw the heading and notes in the chart (the SVG file); the webview shows them as page text, which wraps. */
  titles?: boolean;
}

/** The Vega-Lite spec of one phase. */
export function phaseSpec(p: PhaseEstimate, s: PhaseSeries, locate: Locate, opts: SpecOptions): Record<string, unknown> {
  return phaseChart(p, s, locate, opts).spec;
}

function phaseChart(p: PhaseEstimate, s: PhaseSeries, locate: Locate, opts: SpecOptions): { spec: Record<string, unknown>; notes: string[] } {
  const fmt = (b: number) => formatBytes(b, opts.units);
  const n = s.steps.length;
  const peakTotal = Math.max(0, ...s.totals);
  // The y axis follows the phase's peak; the budget is drawn when that leaves the data at least half the height.
  const budgetOnScale = p.budgetBytes <= Math.max(peakTotal, 1) * 2;
  const top = budgetOnScale ? Math.max(peakTotal, p.budgetBytes) * 1.08 : peakTotal * 1.12;
  const unit = axisUnit(top || 1, opts.units);
  const u = (b: number) => b / unit.size;
  const at = s.spans.map((sp) => locate(sp));
  const lineOf = (j: number) => (at[j] ? `line ${at[j]!.line + 1}` : `step ${s.steps[j] + 1}`);
  /** The steps j..k-1 in words: "line 13: + model.layers", "line 13: + a … + b", "line 13: + a … line 20: − b". */
  const during = (j: number, k: number) => {
    const first = `${lineOf(j)}: ${s.labels[j]}`;
    if (k - j === 1) return first;
    return lineOf(k - 1) === lineOf(j) ? `${first} … ${s.labels[k - 1]}` : `${first} … ${lineOf(k - 1)}: ${s.labels[k - 1]}`;
  };

  const rows: Row[] = [];
  const base = new Array<number>(n).fill(0);
  s.bands.forEach((b) => {
    const created = b.role === 'other' ? 'several places' : (() => { const a = locate(b.span); return a ? `${a.where}${a.text ? ` ${a.text}` : ''}` : 'unknown'; })();
    const loc = b.role === 'other' ? undefined : locate(b.span);
    const contributor = b.role === 'other' ? b.label : `${b.label} (${b.role})`;
    let j = 0;
    while (j < n) {
      const v = b.values[j];
      const lo = base[j];
      let k = j + 1;
      while (k < n && b.values[k] === v && base[k] === lo) k++;
      if (v > 0) {
        rows.push({
          band: b.label, x0: j, x1: k, y0: u(lo), y1: u(lo + v), contributor,
          bytes: `${fmt(v)}${b.max > v ? ` (up to ${fmt(b.max)})` : ''}`,
          created,
          during: during(j, k),
          ...(loc?.uri ? { uri: loc.uri, line: loc.line } : {}),
        });
      }
      j = k;
    }
    for (let i = 0; i < n; i++) base[i] += b.values[i];
  });

  // The time axis: a tick at the first step of each source line (labels that would overlap are dropped).
  const names = s.steps.map((st, j) => stepName(at[j], st));
  const ticks: number[] = [];
  names.forEach((nm, j) => { if (j === 0 || nm !== names[j - 1]) ticks.push(j + 0.5); });
  let pk = 0;
  for (let j = 1; j < n; j++) if (s.totals[j] > s.totals[pk]) pk = j;

  const colors = s.bands.map((b, i) => (b.role === 'other' ? OTHER_COLOR : PALETTE[i % PALETTE.length]));
  const layers: Record<string, unknown>[] = [
    {
      data: { values: rows },
      mark: { type: 'rect', stroke: 'white', strokeWidth: 0.3, cursor: 'pointer' },
      encoding: {
        x: {
          field: 'x0', type: 'quantitative', title: 'program step, by source line (+ allocated, − freed, ⚡ temporary)',
          scale: { domain: [0, Math.max(1, n)], nice: false, zero: true },
          axis: { values: ticks, labelExpr: `${JSON.stringify(names)}[floor(datum.value)]`, labelOverlap: 'greedy', labelSeparation: 6, grid: false, labelFontSize: MIN_FONT_PX, titleFontSize: MIN_FONT_PX },
        },
        x2: { field: 'x1' },
        y: {
          field: 'y0', type: 'quantitative', title: `${unit.name} on device ${s.device}`,
          scale: { domain: [0, +u(top || 1).toPrecision(6)], nice: false },
          axis: { tickCount: 5, labelFontSize: MIN_FONT_PX, titleFontSize: MIN_FONT_PX, format: '~r' },
        },
        y2: { field: 'y1' },
        color: {
          field: 'band', type: 'nominal', title: 'contributor (largest first)',
          scale: { domain: s.bands.map((b) => b.label), range: colors },
          sort: s.bands.map((b) => b.label),
          legend: { orient: 'bottom', direction: 'vertical', columns: 1, labelLimit: opts.width === 'container' ? { expr: 'max(120, width - 30)' } : Math.max(120, opts.width - 30), titleLimit: 0, labelFontSize: MIN_FONT_PX, titleFontSize: MIN_FONT_PX, symbolType: 'square' },
        },
        tooltip: [
          { field: 'contributor', title: 'contributor' },
          { field: 'bytes', title: 'bytes' },
          { field: 'created', title: 'created at' },
          { field: 'during', title: 'step' },
        ],
      },
    },
  ];
  if (n > 0) {
    layers.push({
      data: { values: [{ x: pk + 0.5, y: u(s.totals[pk]), label: `peak ${fmt(s.totals[pk])}` }] },
      layer: [
        { mark: { type: 'point', shape: 'triangle-down', filled: true, color: '#111', size: 70, yOffset: -6 }, encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } } },
        {
          mark: { type: 'text', align: pk < n * 0.6 ? 'left' : 'right', dx: pk < n * 0.6 ? 8 : -8, dy: -8, fontSize: 12, fontWeight: 'bold', color: '#111', stroke: 'white', strokeWidth: 3, strokeOpacity: 0.8 },
          encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' }, text: { field: 'label' } },
        },
        { mark: { type: 'text', align: pk < n * 0.6 ? 'left' : 'right', dx: pk < n * 0.6 ? 8 : -8, dy: -8, fontSize: 12, fontWeight: 'bold', color: '#111' }, encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' }, text: { field: 'label' } } },
      ],
    });
  }
  const notes = [...new Set(p.notes)].slice(0, 3).map((x) => `note: ${shorten(x, 110)}`);
  if (budgetOnScale) {
    // The label at the end away from the peak, so the two do not collide.
    const right = pk < n / 2;
    layers.push({
      data: { values: [{ y: u(p.budgetBytes), label: `budget ${fmt(p.budgetBytes)}` }] },
      layer: [
        { mark: { type: 'rule', color: BUDGET_COLOR, strokeWidth: 2, strokeDash: [8, 4] }, encoding: { y: { field: 'y', type: 'quantitative' } } },
        { mark: { type: 'text', align: right ? 'right' : 'left', baseline: 'bottom', x: right ? 'width' : 0, dx: right ? -4 : 4, dy: -3, fontSize: 12, fontWeight: 'bold', color: BUDGET_COLOR }, encoding: { y: { field: 'y', type: 'quantitative' }, text: { field: 'label' } } },
      ],
    });
  } else {
    const pct = Math.max(0.1, Math.round((peakTotal / p.budgetBytes) * 1000) / 10);
    notes.unshift(`budget ${fmt(p.budgetBytes)} is above this scale: the peak is ${pct}% of it`);
  }
  const spec: Record<string, unknown> = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    ...(opts.titles === false ? {} : { title: { text: phaseHeading(p, opts.units, s.device), subtitle: notes.length ? notes : undefined, anchor: 'start', fontSize: 13, subtitleFontSize: MIN_FONT_PX, subtitleColor: '#555', ...(typeof opts.width === 'number' ? { limit: opts.width } : {}) } }),
    width: opts.width,
    height: opts.height ?? 220,
    autosize: { type: 'fit-x', contains: 'padding' },
    layer: layers,
    config: { font: 'Helvetica, Arial, sans-serif', view: { stroke: '#ccc' }, axis: { labelColor: '#333', titleColor: '#333' }, legend: { labelColor: '#222', titleColor: '#333' } },
  };
  return { spec, notes };
}

export function phaseHeading(p: PhaseEstimate, units: Units, device: number): string {
  const fmt = (b: number) => formatBytes(b, units);
  const peak = p.peakBytes === null ? 'peak unknown' : `peak ${p.peakIsLowerBound ? '≥ ' : ''}${fmt(p.peakBytes)}`;
  return `${p.phase}: ${peak} of ${fmt(p.budgetBytes)} usable${p.perDeviceBytes.length > 1 ? ` (busiest device: ${device})` : ''} · ${verdict(p.fits)}`;
}

/** The phase to show first: the first that does not fit, else the highest share of its budget. */
function initialPhase(est: Estimate): number {
  const bad = est.phases.findIndex((p) => p.fits === false);
  if (bad >= 0) return bad;
  let best = 0;
  est.phases.forEach((p, i) => { if ((p.peakBytes ?? 0) / p.budgetBytes > (est.phases[best].peakBytes ?? 0) / est.phases[best].budgetBytes) best = i; });
  return best;
}

/** Every phase of a model as a chart. */
export function timelineView(facts: ModelFacts, est: Estimate, locate: Locate, opts: SpecOptions): TimelineView {
  const phases: PhaseView[] = [];
  est.phases.forEach((p, i) => {
    const trace = facts.phases[i];
    if (!trace) return;
    const s = phaseSeries(trace, p, est.target.count);
    const chart = phaseChart(p, s, locate, opts);
    phases.push({ phase: p.phase, heading: phaseHeading(p, opts.units, s.device), fits: p.fits, notes: chart.notes, spec: chart.spec });
  });
  return {
    title: `Memory timeline: ${est.model} (${facts.framework}) on ${displayName(est.target)}`,
    caption: `Bytes per device after each step of the program, stacked by contributor (${opts.units === 'GB' ? 'GB = 10^9 bytes' : 'GiB = 2^30 bytes'}). Predicted from the source by oomlens; nothing was run.`,
    phases,
    initial: Math.min(initialPhase(est), Math.max(0, phases.length - 1)),
  };
}

/** One document with every phase stacked, for `--format svg`. */
export function documentSpec(view: TimelineView, width: number): Record<string, unknown> {
  const charts = view.phases.map((p) => {
    const { $schema: _s, config: _c, ...rest } = p.spec as Record<string, unknown> & { $schema?: unknown; config?: unknown };
    return { ...rest, width };
  });
  const config = view.phases[0]?.spec.config ?? {};
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: view.title, subtitle: view.caption, anchor: 'start', fontSize: 15, subtitleFontSize: MIN_FONT_PX, subtitleColor: '#444', limit: width },
    background: 'white',
    padding: 12,
    ...(charts.length ? { vconcat: charts, spacing: 28, resolve: { scale: { color: 'independent', x: 'independent', y: 'independent' }, legend: { color: 'independent' } } } : { data: { values: [{ t: 'No phase was traced for this model.' }] }, mark: { type: 'text', fontSize: 12 }, encoding: { text: { field: 't' } } }),
    config,
  };
}

/** A locator over one file's text (the analysed file), with spans in other files named by path and line. */
export function locatorFor(text: string, uri: string, displayPath: string, fileUri: (path: string) => string): Locate {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const base = displayPath.split(/[\\/]/).pop() ?? displayPath;
  return (span) => {
    if (!span) return undefined;
    if (span.file) {
      const line = Math.max(0, (span.line ?? 1) - 1);
      // A file that is not a path (a library modelled by oomlens, frameworks/torch/vision_models.ts): named, no link.
      if (!isAbsolute(span.file)) return { uri: '', line, where: `${span.file}:${line + 1}`, text: '' };
      return { uri: fileUri(span.file), line, where: `${span.file.split(/[\\/]/).pop()}:${line + 1}`, text: '' };
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= span.start) lo = mid; else hi = mid - 1;
    }
    const end = lo + 1 < starts.length ? starts[lo + 1] - 1 : text.length;
    const lineText = text.slice(starts[lo], end).trim();
    return { uri, line: lo, where: `${base}:${lo + 1}`, text: lineText ? `\`${shorten(lineText, 48)}\`` : '' };
  };
}
