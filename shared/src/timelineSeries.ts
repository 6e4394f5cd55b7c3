/**
 * The memory timeline's numbers: for each phase of a model, what is live on
 * the busiest device after every event of the phase (allocations, frees,
 * temporaries), per contributor. The picture is drawn elsewhere (a Vega-Lite
 * spec built in server/src/timeline/), so the engine stays free of charting.
 *
 * The per-contributor series come from the same replay as the estimate
 * (timeline.ts `share`, `tensorBytes`), twice over the events (once to
 * rank contributors by their largest size, once to record the series), so
 * the work stays linear in the events. Points are the estimate's timeline
 * points (runs of allocations of one group are one point); more than
 * `maxPoints` are reduced to the largest point of each bucket, so the peak
 * is always drawn.
 */
import type { PhaseTrace, Span, TensorRole } from './facts';
import { share, tensorBytes } from './timeline';
import type { PhaseEstimate } from './types';

export interface Band {
  label: string;
  /** The role of the contributor's first tensor, or 'other' for the remainder band. */
  role: TensorRole | 'other';
  /** Bytes on the device at each point. */
  values: number[];
  max: number;
  /** Where the contributor is created (its first tensor, or the temporary's op); none for the remainder band. */
  span?: Span;
}

export interface PhaseSeries {
  phase: string;
  /** The device the series is taken on (the estimate's busiest device). */
  device: number;
  /** Trace event index of each point. */
  steps: number[];
  /** The estimate's timeline label of each point ("+ layers", "− x", "⚡ threefry"). */
  labels: string[];
  /** The source span of each point's event (the statement that allocated, freed or needed it), when known. */
  spans: (Span | undefined)[];
  /** Sum of the bands at each point. */
  totals: number[];
  bands: Band[];
}

export const MAX_BANDS = 7;
export const MAX_POINTS = 600;
/** A contributor whose largest size is below this share of the largest contributor's goes into "other". */
export const MIN_BAND_SHARE = 0.01;

/** Per-contributor bytes on the estimate's busiest device at each timeline point of the phase. */
export function phaseSeries(trace: PhaseTrace, p: PhaseEstimate, deviceCount: number, maxBands = MAX_BANDS, maxPoints = MAX_POINTS, minShare = MIN_BAND_SHARE): PhaseSeries {
  const count = Math.max(1, deviceCount);
  const dev = p.peakDevice;
  const keyOf = (t: { group?: string; label: string }) => t.group ?? t.label;

  // Pass 1: each group's largest size on the device, and its role.
  const cur = new Map<string, number>();
  const max = new Map<string, number>();
  const role = new Map<string, TensorRole>();
  const spanOf = new Map<string, Span | undefined>();
  const live = new Map<number, { key: string; bytes: number }>();
  const bump = (key: string, v: number) => { if (v > (max.get(key) ?? 0)) max.set(key, v); };
  for (const ev of trace.events) {
    if (ev.op === 'alloc') {
      const b = tensorBytes(ev.tensor);
      if (b === null) continue;
      const bytes = share(ev.tensor.placement, b, dev, count);
      const key = keyOf(ev.tensor);
      if (!role.has(key)) { role.set(key, ev.tensor.role); spanOf.set(key, ev.tensor.span); }
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
      if (!role.has(ev.label)) { role.set(ev.label, ev.role); spanOf.set(ev.label, ev.span); }
      bump(ev.label, ev.bytesPerDevice);
    }
  }
  const ranked = [...max.entries()].filter(([, m]) => m > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  // Named: the largest contributors up to the band limit, each at least minShare of the largest; the rest is one band.
  const floor = (ranked[0]?.[1] ?? 0) * minShare;
  const big = ranked.filter(([, m]) => m >= floor);
  const named = big.length <= maxBands && big.length === ranked.length ? big : big.slice(0, maxBands - 1);
  const bandIndex = new Map<string, number>(named.map(([k], i) => [k, i]));
  const hasOther = ranked.length > named.length;
  const nb = named.length + (hasOther ? 1 : 0);
  const slot = (key: string) => bandIndex.get(key) ?? named.length;

  // Pass 2: the series at each timeline point.
  const points = p.timeline;
  const values: number[][] = Array.from({ length: nb }, () => []);
  const steps: number[] = [];
  const labels: string[] = [];
  const spans: (Span | undefined)[] = [];
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
      spans.push(points[k].span);
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
    const p2 = keep.map((j) => spans[j]);
    totals = keep.map((j) => totals[j]);
    steps.splice(0, steps.length, ...s2);
    labels.splice(0, labels.length, ...l2);
    spans.splice(0, spans.length, ...p2);
  }

  const bands: Band[] = named.map(([label, m], i) => ({ label, role: role.get(label) ?? 'temporary', values: values[i], max: m, span: spanOf.get(label) }));
  if (hasOther) bands.push({ label: `other (${ranked.length - named.length} smaller contributor${ranked.length - named.length === 1 ? '' : 's'})`, role: 'other', values: values[nb - 1], max: otherMax });
  return { phase: p.phase, device: dev, steps, labels, spans, totals, bands };
}

