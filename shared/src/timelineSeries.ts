/**
 * The memory timeline as a picture: for each phase of a model, what is live
 * on the busiest device after every event of the phase (allocations, frees,
 * temporaries), stacked by contributor, with the framework budget as a
 * horizontal line. Returns a standalone SVG string: deterministic, every
 * label escaped, no scripts, styles, fonts or other external resources, so
 * it can be written to a file or inlined in a webview under a strict CSP.
 *
 * The per-contributor series come from the same replay as the estimate
 * (timeline.ts `share`, `tensorBytes`), twice over the events (once to
 * rank contributors by their largest size, once to record the series), so
 * the work stays linear in the events. Points are the estimate's timeline
 * points (runs of allocations of one group are one point); more than
 * `maxPoints` are reduced to the largest point of each bucket, so the peak
 * is always drawn.
 */
import type { PhaseTrace, TensorRole } from './facts';
import { displayName } from './devices';
import { share, tensorBytes } from './timeline';
import type { Estimate, PhaseEstimate, Units } from './types';
import type { ModelFacts } from './facts';
import { formatBytes } from './units';

export interface Band {
  label: string;
  /** The role of the contributor's first tensor, or 'other' for the remainder band. */
  role: TensorRole | 'other';
  /** Bytes on the device at each point. */
  values: number[];
  max: number;
}

export interface PhaseSeries {
  phase: string;
  /** The device the series is taken on (the estimate's busiest device). */
  device: number;
  /** Trace event index of each point. */
  steps: number[];
  /** The estimate's timeline label of each point ("+ layers", "− x", "⚡ threefry"). */
  labels: string[];
  /** Sum of the bands at each point. */
  totals: number[];
  bands: Band[];
}

export const MAX_BANDS = 7;
export const MAX_POINTS = 600;

/** Per-contributor bytes on the estimate's busiest device at each timeline point of the phase. */
export function phaseSeries(trace: PhaseTrace, p: PhaseEstimate, deviceCount: number, maxBands = MAX_BANDS, maxPoints = MAX_POINTS): PhaseSeries {
  const count = Math.max(1, deviceCount);
  const dev = p.peakDevice;
  const keyOf = (t: { group?: string; label: string }) => t.group ?? t.label;

  // Pass 1: each group's largest size on the device, and its role.
  const cur = new Map<string, number>();
  const max = new Map<string, number>();
  const role = new Map<string, TensorRole>();
  const live = new Map<number, { key: string; bytes: number }>();
  const bump = (key: string, v: number) => { if (v > (max.get(key) ?? 0)) max.set(key, v); };
  for (const ev of trace.events) {
    if (ev.op === 'alloc') {
      const b = tensorBytes(ev.tensor);
      if (b === null) continue;
      const bytes = share(ev.tensor.placement, b, dev, count);
      const key = keyOf(ev.tensor);
      if (!role.has(key)) role.set(key, ev.tensor.role);
      live.set(ev.tensor.id, { key, bytes });
      const v = (cur.get(key) ?? 0) + bytes;
      cur.set(key, v);
      bump(key, v);
    } else if (ev.op === 'free') {
      const x = live.get(ev.id);
      if (!x) continue;
      live.delete(ev.id);
      cur.set(x.key, (cur.get(x.key) ?? 0) - x.bytes);
    } else {
      if (!role.has(ev.label)) role.set(ev.label, ev.role);
      bump(ev.label, ev.bytesPerDevice);
    }
  }
  const ranked = [...max.entries()].filter(([, m]) => m > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const named = ranked.length <= maxBands ? ranked : ranked.slice(0, maxBands - 1);
  const bandIndex = new Map<string, number>(named.map(([k], i) => [k, i]));
  const hasOther = ranked.length > named.length;
  const nb = named.length + (hasOther ? 1 : 0);
  const slot = (key: string) => bandIndex.get(key) ?? named.length;

  // Pass 2: the series at each timeline point.
  const points = p.timeline;
  const values: number[][] = Array.from({ length: nb }, () => []);
  const steps: number[] = [];
  const labels: string[] = [];
  const now = new Array<number>(nb).fill(0);
  const liveSlot = new Map<number, { slot: number; bytes: number }>();
  let otherMax = 0;
  let k = 0;
  trace.events.forEach((ev, step) => {
    let extra: { slot: number; bytes: number } | undefined;
    if (ev.op === 'alloc') {
      const b = tensorBytes(ev.tensor);
      if (b !== null) {
        const bytes = share(ev.tensor.placement, b, dev, count);
        const s = slot(keyOf(ev.tensor));
        liveSlot.set(ev.tensor.id, { slot: s, bytes });
        if (s < nb) now[s] += bytes;
      }
    } else if (ev.op === 'free') {
      const x = liveSlot.get(ev.id);
      if (x) {
        liveSlot.delete(ev.id);
        if (x.slot < nb) now[x.slot] -= x.bytes;
      }
    } else {
      extra = { slot: slot(ev.label), bytes: ev.bytesPerDevice };
    }
    while (k < points.length && points[k].step < step) k++;
    if (k < points.length && points[k].step === step) {
      for (let i = 0; i < nb; i++) values[i].push(Math.max(0, now[i] + (extra && extra.slot === i ? extra.bytes : 0)));
      if (hasOther) otherMax = Math.max(otherMax, values[nb - 1][values[nb - 1].length - 1]);
      steps.push(step);
      labels.push(points[k].label);
      k++;
    }
  });
  let totals = steps.map((_, j) => values.reduce((a, v) => a + v[j], 0));

  // Reduce to at most maxPoints: the largest point of each bucket.
  if (steps.length > maxPoints) {
    const keep: number[] = [];
    for (let b = 0; b < maxPoints; b++) {
      const lo = Math.floor((b * steps.length) / maxPoints);
      const hi = Math.floor(((b + 1) * steps.length) / maxPoints);
      let best = lo;
      for (let j = lo + 1; j < hi; j++) if (totals[j] > totals[best]) best = j;
      keep.push(best);
    }
    for (let i = 0; i < nb; i++) values[i] = keep.map((j) => values[i][j]);
    const s2 = keep.map((j) => steps[j]);
    const l2 = keep.map((j) => labels[j]);
    totals = keep.map((j) => totals[j]);
    steps.splice(0, steps.length, ...s2);
    labels.splice(0, labels.length, ...l2);
  }

  const bands: Band[] = named.map(([label, m], i) => ({ label, role: role.get(label) ?? 'temporary', values: values[i], max: m }));
  if (hasOther) bands.push({ label: `${ranked.length - named.length} smaller contributors`, role: 'other', values: values[nb - 1], max: otherMax });
  return { phase: p.phase, device: dev, steps, labels, totals, bands };
}

/** XML text / attribute escaping; characters XML 1.0 forbids are dropped. */
export function escapeXml(s: string): string {
  return s
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function truncate(s: string, n: number): string {
  const cps = [...s];
  return cps.length <= n ? s : cps.slice(0, Math.max(0, n - 1)).join('') + '…';
}

/** Okabe–Ito colours (distinguishable with colour-vision deficiencies); grey for the remainder. */
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#F0E442', '#8C6D31'];
const OTHER = '#B8B8B8';
const BUDGET = '#D00000';
const FONT = 'font-family="Helvetica, Arial, sans-serif"';
/** Average advance of an 11 px sans-serif character, for fitting legend text. */
const CHAR_W = 6.2;

const r1 = (x: number): string => {
  const v = Math.round(x * 10) / 10;
  return Object.is(v, -0) ? '0' : String(v);
};

/** A 1, 2, 2.5 or 5 × 10^k step giving about `n` intervals up to `max`. */
function niceStep(max: number, n = 5): number {
  if (!(max > 0)) return 1;
  const raw = max / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

/** The axis unit: the largest of the chosen family's units not above `max`. */
function axisUnit(max: number, units: Units): { name: string; size: number } {
  const steps = units === 'GB'
    ? [[1e12, 'TB'], [1e9, 'GB'], [1e6, 'MB'], [1e3, 'kB']] as const
    : [[2 ** 40, 'TiB'], [2 ** 30, 'GiB'], [2 ** 20, 'MiB'], [2 ** 10, 'KiB']] as const;
  for (const [size, name] of steps) if (max >= size) return { name, size };
  return { name: 'B', size: 1 };
}

const verdict = (fits: boolean | null): string => (fits === null ? '?' : fits ? '✓ fits' : '✗ does not fit');

export interface TimelineSvgOptions {
  units: Units;
  width?: number;
  maxBands?: number;
  maxPoints?: number;
}

/** One SVG with a panel per phase of the model. */
export function timelineSvg(facts: ModelFacts, est: Estimate, opts: TimelineSvgOptions): string {
  const W = opts.width ?? 880;
  const ML = 78;
  const MR = 26;
  const plotW = W - ML - MR;
  const plotH = 200;
  const units = opts.units;
  const fmt = (b: number) => formatBytes(b, units);
  const out: string[] = [];
  let y = 0;

  const header: string[] = [];
  header.push(`<text x="16" y="24" ${FONT} font-size="16" font-weight="bold" fill="#111">${escapeXml(`Memory timeline: ${est.model} (${facts.framework}) on ${displayName(est.target)}`)}</text>`);
  header.push(`<text x="16" y="42" ${FONT} font-size="12" fill="#444">${escapeXml(`Bytes per device after each event, stacked by contributor. ${units === 'GB' ? 'GB = 10^9 bytes' : 'GiB = 2^30 bytes'}. Predicted from the source by oomlens; nothing was run.`)}</text>`);
  y = 56;
  out.push(...header);

  if (!est.phases.length) {
    out.push(`<text x="16" y="${y + 16}" ${FONT} font-size="13" fill="#444">No phase was traced for this model.</text>`);
    y += 32;
  }

  est.phases.forEach((p, index) => {
    const trace = facts.phases[index];
    const s = trace ? phaseSeries(trace, p, est.target.count, opts.maxBands, opts.maxPoints) : undefined;
    const top = y;
    const several = est.target.count > 1;
    const peakText = p.peakBytes === null ? 'peak unknown' : `peak ${fmt(p.peakBytes)}${p.unknowns.length ? ' or more' : ''}`;
    out.push(`<g>`);
    out.push(`<text x="16" y="${top + 18}" ${FONT} font-size="14" font-weight="bold" fill="#111">${escapeXml(`${p.phase}: ${peakText} of ${fmt(p.budgetBytes)} usable${several ? ` (busiest device: ${p.peakDevice})` : ''} ${verdict(p.fits)}`)}</text>`);
    const py = top + 30;
    if (!s || s.steps.length === 0) {
      out.push(`<text x="${ML}" y="${py + 20}" ${FONT} font-size="12" fill="#444">No memory events traced in this phase.</text>`);
      out.push(`</g>`);
      y = py + 40;
      return;
    }
    const n = s.steps.length;
    const peakTotal = Math.max(0, ...s.totals);
    // Scaled to the phase's peak when the budget dwarfs it (a small model would otherwise be a flat
    // line at 0); the budget line is then off the scale and said so.
    const budgetOnScale = peakTotal <= 0 || peakTotal >= p.budgetBytes * 0.25;
    const top0 = (budgetOnScale ? Math.max(peakTotal, p.budgetBytes) : peakTotal) * 1.08;
    const unit = axisUnit(top0, units);
    const step = niceStep(top0 / unit.size);
    const yMaxU = Math.ceil(top0 / unit.size / step) * step;
    const yMax = yMaxU * unit.size;
    const yOf = (b: number) => py + plotH - (b / yMax) * plotH;
    const xOf = (i: number) => ML + (i * plotW) / n;

    // Grid and y axis.
    out.push(`<rect x="${ML}" y="${py}" width="${plotW}" height="${plotH}" fill="#FAFAFA" stroke="#CCC"/>`);
    for (let v = 0, i = 0; v <= yMaxU + 1e-9 && i < 50; v = +(v + step).toFixed(10), i++) {
      const yy = r1(yOf(v * unit.size));
      out.push(`<line x1="${ML}" y1="${yy}" x2="${ML + plotW}" y2="${yy}" stroke="#E4E4E4"/>`);
      out.push(`<text x="${ML - 6}" y="${r1(yOf(v * unit.size) + 4)}" ${FONT} font-size="11" fill="#333" text-anchor="end">${escapeXml(`${+v.toFixed(3)} ${unit.name}`)}</text>`);
    }

    // Stacked step areas, largest contributor at the bottom.
    const base = new Array<number>(n).fill(0);
    s.bands.forEach((b, bi) => {
      const lo = base.slice();
      const hi = lo.map((v, j) => v + b.values[j]);
      let d = `M${r1(xOf(0))},${r1(yOf(hi[0]))}`;
      for (let j = 0; j < n; j++) {
        if (j > 0 && hi[j] !== hi[j - 1]) d += `V${r1(yOf(hi[j]))}`;
        d += `H${r1(xOf(j + 1))}`;
      }
      d += `V${r1(yOf(lo[n - 1]))}`;
      for (let j = n - 1; j >= 0; j--) {
        d += `H${r1(xOf(j))}`;
        if (j > 0 && lo[j - 1] !== lo[j]) d += `V${r1(yOf(lo[j - 1]))}`;
      }
      d += 'Z';
      const color = b.role === 'other' ? OTHER : PALETTE[bi % PALETTE.length];
      out.push(`<path d="${d}" fill="${color}" fill-opacity="0.85" stroke="${color}" stroke-width="0.5"><title>${escapeXml(`${b.label} (${b.role}): up to ${fmt(b.max)}`)}</title></path>`);
      for (let j = 0; j < n; j++) base[j] = hi[j];
    });

    // Budget line, or where it is when it lies far above this scale.
    if (budgetOnScale) {
      const by = r1(yOf(p.budgetBytes));
      out.push(`<line x1="${ML}" y1="${by}" x2="${ML + plotW}" y2="${by}" stroke="${BUDGET}" stroke-width="2" stroke-dasharray="8 4"/>`);
      out.push(`<text x="${ML + plotW - 4}" y="${r1(yOf(p.budgetBytes) - 5)}" ${FONT} font-size="12" font-weight="bold" fill="${BUDGET}" stroke="#FFFFFF" stroke-width="3" paint-order="stroke" text-anchor="end">${escapeXml(`budget ${fmt(p.budgetBytes)}`)}</text>`);
    } else {
      const share = Math.max(0.1, Math.round((peakTotal / p.budgetBytes) * 1000) / 10);
      out.push(`<text x="${ML + plotW - 4}" y="${py + 14}" ${FONT} font-size="12" font-weight="bold" fill="${BUDGET}" stroke="#FFFFFF" stroke-width="3" paint-order="stroke" text-anchor="end">${escapeXml(`budget ${fmt(p.budgetBytes)} ↑ above this scale (peak ${share}% of it)`)}</text>`);
    }

    // Peak marker.
    let pk = 0;
    for (let j = 1; j < n; j++) if (s.totals[j] > s.totals[pk]) pk = j;
    const px = (xOf(pk) + xOf(pk + 1)) / 2;
    const pyk = yOf(s.totals[pk]);
    out.push(`<path d="M${r1(px - 5)},${r1(pyk - 9)}H${r1(px + 5)}L${r1(px)},${r1(pyk - 2)}Z" fill="#111"/>`);
    const right = px < ML + plotW * 0.7;
    out.push(`<text x="${r1(right ? px + 8 : px - 8)}" y="${r1(Math.max(py + 12, pyk - 6))}" ${FONT} font-size="12" font-weight="bold" fill="#111" stroke="#FFFFFF" stroke-width="3" paint-order="stroke" text-anchor="${right ? 'start' : 'end'}">${escapeXml(`peak ${fmt(s.totals[pk])}`)}</text>`);

    // X axis: event numbers.
    const ax = py + plotH;
    const ticks = Math.min(n, 6);
    for (let t = 0; t < ticks; t++) {
      const j = ticks === 1 ? 0 : Math.round((t * (n - 1)) / (ticks - 1));
      const xx = r1((xOf(j) + xOf(j + 1)) / 2);
      out.push(`<line x1="${xx}" y1="${ax}" x2="${xx}" y2="${ax + 4}" stroke="#666"/>`);
      out.push(`<text x="${xx}" y="${ax + 16}" ${FONT} font-size="11" fill="#333" text-anchor="middle">${s.steps[j] + 1}</text>`);
    }
    const axisTitle = `event in program order (allocation +, free −, temporary ⚡); peak at event ${s.steps[pk] + 1}: `;
    const room = Math.max(12, Math.floor(plotW / CHAR_W) - [...axisTitle].length);
    out.push(`<text x="${ML}" y="${ax + 32}" ${FONT} font-size="11" fill="#444">${escapeXml(axisTitle + truncate(s.labels[pk], room))}</text>`);

    // Legend: two columns when every entry fits in half the width (about 6 px per character at 11 px), else one.
    let ly = ax + 50;
    const suffix = (b: Band) => ` · ${b.role} · up to ${fmt(b.max)}`;
    const entry = (b: Band, maxLabel: number) => `${truncate(b.label, maxLabel)}${suffix(b)}`;
    const fitsIn = (w: number) => Math.floor((w - 24) / CHAR_W);
    const twoCols = s.bands.every((b) => [...entry(b, 1000)].length <= fitsIn(plotW / 2));
    const cols = twoCols ? 2 : 1;
    const colW = plotW / cols;
    s.bands.forEach((b, bi) => {
      const col = bi % cols;
      const row = Math.floor(bi / cols);
      const lx = ML + col * colW;
      const yy = ly + row * 18;
      const color = b.role === 'other' ? OTHER : PALETTE[bi % PALETTE.length];
      const room = Math.max(12, fitsIn(colW) - [...suffix(b)].length);
      out.push(`<g><title>${escapeXml(`${b.label} (${b.role})`)}</title><rect x="${r1(lx)}" y="${yy - 10}" width="12" height="12" fill="${color}"/>`
        + `<text x="${r1(lx + 18)}" y="${yy}" ${FONT} font-size="11" fill="#222">${escapeXml(entry(b, room))}</text></g>`);
    });
    ly += Math.ceil(s.bands.length / cols) * 18;
    const notes = [...p.notes].filter((x, i, a) => a.indexOf(x) === i).slice(0, 3);
    for (const note of notes) {
      out.push(`<text x="${ML}" y="${ly + 4}" ${FONT} font-size="11" fill="#666">${escapeXml(`note: ${truncate(note, 120)}`)}</text>`);
      ly += 16;
    }
    out.push(`</g>`);
    y = ly + 14;
  });

  const H = Math.ceil(y + 6);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeXml(`Memory timeline of ${est.model}`)}">`,
    `<rect x="0" y="0" width="${W}" height="${H}" fill="#FFFFFF"/>`,
    ...out,
    `</svg>`,
  ].join('\n') + '\n';
}
