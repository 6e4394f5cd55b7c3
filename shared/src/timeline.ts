/**
 * Replays a phase's memory events and takes the peak per device: the live
 * set after every allocation and free, plus each transient (XLA temporaries)
 * on top of the live set at its instant. The breakdown lists what is live on
 * the busiest device at the peak, grouped, summing exactly to the peak.
 */
import type { MemoryEvent, PhaseTrace, Placement, TensorFact } from './facts';
import { dtypeBytes } from './dtypes';
import type { Contributor, PhaseEstimate, TimelinePoint } from './types';

/** Devices tracked individually; beyond this, devices repeat the pattern of the first ones. */
const MAX_TRACKED = 64;

export function tensorBytes(t: Pick<TensorFact, 'shape' | 'dtype'>): number | null {
  let n = 1;
  for (const d of t.shape) {
    if (!Number.isInteger(d) || d < 0) return null;
    n *= d;
  }
  const b = n * dtypeBytes(t.dtype);
  return Number.isFinite(b) && b <= Number.MAX_SAFE_INTEGER ? b : null;
}

/** Bytes of a tensor of `bytes` placed at `p` that land on `device` of `count` devices. */
export function share(p: Placement, bytes: number, device: number, count: number): number {
  switch (p.kind) {
    case 'host': return 0;
    case 'replicated': return bytes;
    case 'device': return (p.index < count ? p.index : 0) === device ? bytes : 0;
    case 'sharded': {
      const over = Math.max(1, Math.min(p.over, count));
      return device < over ? bytes / over : 0;
    }
  }
}

/** The tensors alive at the end of a phase (e.g. the weights as loaded or initialised). */
export function liveAtEnd(trace: PhaseTrace): TensorFact[] {
  const live = new Map<number, TensorFact>();
  for (const ev of trace.events) {
    if (ev.op === 'alloc') live.set(ev.tensor.id, ev.tensor);
    else if (ev.op === 'free') live.delete(ev.id);
  }
  return [...live.values()];
}

/**
 * The peak of `replayPhase(trace, deviceCount, budget).peakBytes`, the same
 * number by the same arithmetic in the same order, without the timeline,
 * notes and breakdown: advice.ts replays a phase once per candidate change.
 * `bytesOf` gives an allocation's size (default `tensorBytes`; null: unknown),
 * `transientOf` a transient's bytes per device (default `bytesPerDevice`).
 */
export function replayPeak(
  trace: PhaseTrace,
  deviceCount: number,
  bytesOf: (t: TensorFact) => number | null = tensorBytes,
  transientOf: (e: Extract<MemoryEvent, { op: 'transient' }>) => number = (e) => e.bytesPerDevice,
): number | null {
  const count = Math.max(1, deviceCount);
  const tracked = Math.min(count, MAX_TRACKED);
  let unknown = trace.unknowns.length > 0;
  const live = new Map<number, number[]>();
  const cur = new Array<number>(tracked).fill(0);
  let peak = 0;
  for (const ev of trace.events) {
    if (ev.op === 'alloc') {
      const b = bytesOf(ev.tensor);
      if (b === null) { unknown = true; continue; }
      const per = new Array<number>(tracked);
      for (let d = 0; d < tracked; d++) { per[d] = share(ev.tensor.placement, b, d, count); cur[d] += per[d]; }
      live.set(ev.tensor.id, per);
      for (let d = 0; d < tracked; d++) if (cur[d] > peak) peak = cur[d];
    } else if (ev.op === 'free') {
      const per = live.get(ev.id);
      if (!per) continue;
      live.delete(ev.id);
      for (let d = 0; d < tracked; d++) cur[d] -= per[d];
    } else {
      const extra = transientOf(ev);
      for (let d = 0; d < tracked; d++) { const v = cur[d] + extra; if (v > peak) peak = v; }
    }
  }
  return unknown && peak === 0 ? null : peak;
}

export function replayPhase(trace: PhaseTrace, deviceCount: number, budgetBytes: number): PhaseEstimate {
  const count = Math.max(1, deviceCount);
  const tracked = Math.min(count, MAX_TRACKED);
  const notes = [...trace.notes];
  const unknowns = [...trace.unknowns];
  const live = new Map<number, { t: TensorFact; per: number[] }>();
  const cur = new Array<number>(tracked).fill(0);
  const maxPer = new Array<number>(tracked).fill(0);
  let peak = 0;
  let peakDevice = 0;
  // The step of the peak is remembered and its live set rebuilt afterwards:
  // copying the live set at every new peak is quadratic on a growing trace.
  let peakStep = -1;
  let peakTransient: Extract<MemoryEvent, { op: 'transient' }> | undefined;
  const timeline: TimelinePoint[] = [];

  const consider = (step: number, extra?: Extract<MemoryEvent, { op: 'transient' }>) => {
    for (let d = 0; d < tracked; d++) {
      const v = cur[d] + (extra ? extra.bytesPerDevice : 0);
      if (v > maxPer[d]) maxPer[d] = v;
      if (v > peak) { peak = v; peakDevice = d; peakStep = step; peakTransient = extra; }
    }
  };

  trace.events.forEach((ev, step) => {
    if (ev.op === 'alloc') {
      const b = tensorBytes(ev.tensor);
      if (b === null) {
        unknowns.push({ what: `size of ${ev.tensor.label}`, reason: 'a dimension is unknown or the size exceeds 2^53 bytes', span: ev.tensor.span });
        return;
      }
      const per = Array.from({ length: tracked }, (_, d) => share(ev.tensor.placement, b, d, count));
      if (ev.tensor.placement.kind === 'device' && ev.tensor.placement.index >= count) {
        notes.push(`${ev.tensor.label} is placed on device ${ev.tensor.placement.index}, beyond the ${count} target device(s): counted on device 0`);
      }
      if (ev.tensor.placement.kind === 'sharded' && ev.tensor.placement.over > count) {
        notes.push(`${ev.tensor.label} is sharded over ${ev.tensor.placement.over} devices but the target has ${count}: divided by ${count}`);
      }
      live.set(ev.tensor.id, { t: ev.tensor, per });
      per.forEach((x, d) => { cur[d] += x; });
      consider(step);
      const label = ev.tensor.group ?? ev.tensor.label;
      const last = timeline[timeline.length - 1];
      if (last && last.label === `+ ${label}`) { last.liveBytes = cur[0]; last.step = step; }
      else timeline.push({ step, label: `+ ${label}`, liveBytes: cur[0], span: ev.tensor.span });
    } else if (ev.op === 'free') {
      const x = live.get(ev.id);
      if (!x) return;
      live.delete(ev.id);
      x.per.forEach((v, d) => { cur[d] -= v; });
      const label = `− ${x.t.group ?? x.t.label}`;
      const last = timeline[timeline.length - 1];
      if (last && last.label === label) { last.liveBytes = cur[0]; last.step = step; }
      else timeline.push({ step, label, liveBytes: cur[0], span: ev.span });
    } else {
      consider(step, ev);
      timeline.push({ step, label: `⚡ ${ev.label}`, liveBytes: cur[0] + ev.bytesPerDevice, span: ev.span });
    }
  });

  // Rebuild what is live at the peak step on the peak device.
  const atPeak = new Map<number, { t: TensorFact; bytes: number }>();
  for (let step = 0; step <= peakStep; step++) {
    const ev = trace.events[step];
    if (ev.op === 'alloc') {
      const b = tensorBytes(ev.tensor);
      if (b === null) continue;
      atPeak.set(ev.tensor.id, { t: ev.tensor, bytes: share(ev.tensor.placement, b, peakDevice, count) });
    } else if (ev.op === 'free') atPeak.delete(ev.id);
  }
  const peakSnapshot = { tensors: [...atPeak.values()].filter((x) => x.bytes > 0), transient: peakTransient };

  // Group what is live at the peak.
  const groups = new Map<string, Contributor>();
  for (const { t, bytes } of peakSnapshot.tensors) {
    const key = t.group ?? t.label;
    const g = groups.get(key);
    if (g) { g.bytes += bytes; g.count++; }
    else groups.set(key, { label: key, bytes, role: t.role, span: t.span, count: 1, note: t.note, citation: t.citation });
  }
  const breakdown = [...groups.values()];
  const tr = peakSnapshot.transient;
  if (tr) breakdown.push({ label: tr.label, bytes: tr.bytesPerDevice, role: tr.role, span: tr.span, count: 1, formula: tr.formula, citation: tr.citation });
  breakdown.sort((a, b) => b.bytes - a.bytes);

  // Unknown is never zero: with a size unknown the peak is a lower bound (flagged), a phase with
  // nothing known has no peak at all, and the verdict is only firm when the known part already exceeds.
  let fits: boolean | null = peak <= budgetBytes;
  const peakIsLowerBound = unknowns.length > 0;
  // A part counted that may be larger than what is there (Unknown.noBound): the sum is not even a lower bound.
  const noBound = unknowns.some((u) => u.noBound);
  if (peakIsLowerBound) {
    notes.push(noBound ? 'what is counted may be more than what is there: no peak is given' : 'some sizes are unknown: the peak shown is a lower bound');
    fits = peak > budgetBytes && !noBound ? false : null;
  }
  const perDeviceBytes = Array.from({ length: Math.min(count, MAX_TRACKED) }, (_, d) => maxPer[d]);
  return {
    phase: trace.phase, peakBytes: (peakIsLowerBound && peak === 0) || noBound ? null : peak, peakIsLowerBound, peakDevice, perDeviceBytes, budgetBytes, fits, breakdown, timeline, notes, unknowns, jitted: trace.jitted,
  };
}
