/**
 * Shape propagation for array operations (NumPy/JAX semantics): pure
 * functions over dimensions that may be unknown. (Bootstrap version: the
 * full set is being written by its owner.)
 */
import type { DType } from '../../../shared/src/facts';
import type { Dim, UnknownValue } from '../catalog/types';

export type Index =
  | { kind: 'int'; value: number | { unknown: string } }
  | { kind: 'slice'; start: number | null | { unknown: string }; stop: number | null | { unknown: string }; step: number | null | { unknown: string } }
  | { kind: 'newaxis' }
  | { kind: 'ellipsis' }
  | { kind: 'array'; shape: Dim[]; dtype: DType };

const unk = (reason: string): UnknownValue => ({ kind: 'unknown', reason });

export function broadcastShapes(...shapes: Dim[][]): Dim[] | UnknownValue {
  const n = Math.max(0, ...shapes.map((s) => s.length));
  const out: Dim[] = [];
  for (let i = 0; i < n; i++) {
    let d: Dim = 1;
    for (const s of shapes) {
      const x = s[s.length - n + i] ?? 1;
      if (typeof x !== 'number') { if (d === 1 || typeof d !== 'number') d = x; continue; }
      if (x === 1) continue;
      if (typeof d === 'number' && d !== 1 && d !== x) return unk(`cannot broadcast shapes ${shapes.map(fmt).join(' and ')}`);
      d = x;
    }
    out.push(d);
  }
  return out;
}

function fmt(s: Dim[]): string {
  return `[${s.map((d) => (typeof d === 'number' ? d : '?')).join(',')}]`;
}

function sliceLen(n: Dim, s: Extract<Index, { kind: 'slice' }>): Dim {
  if (typeof n !== 'number') return n;
  const vals = [s.start, s.stop, s.step];
  if (vals.some((v) => v !== null && typeof v !== 'number')) return { unknown: 'slice bound not known' };
  const step = (s.step as number | null) ?? 1;
  const norm = (v: number | null, d: number) => (v === null ? d : v < 0 ? Math.max(v + n, step > 0 ? 0 : -1) : Math.min(v, n));
  const start = norm(s.start as number | null, step > 0 ? 0 : n - 1);
  const stop = norm(s.stop as number | null, step > 0 ? n : -1);
  return Math.max(0, Math.ceil((stop - start) / step));
}

export function indexShape(shape: Dim[], idx: Index[]): Dim[] | UnknownValue {
  const consumed = idx.filter((i) => i.kind === 'int' || i.kind === 'slice' || i.kind === 'array').length;
  if (consumed > shape.length) return unk(`too many indices (${consumed}) for an array of rank ${shape.length}`);
  const out: Dim[] = [];
  let axis = 0;
  let arrayShape: Dim[] | undefined;
  for (const i of idx) {
    switch (i.kind) {
      case 'newaxis': out.push(1); break;
      case 'ellipsis': {
        const rest = shape.length - consumed;
        for (let k = 0; k < rest; k++) out.push(shape[axis++]);
        break;
      }
      case 'int': axis++; break;
      case 'slice': out.push(sliceLen(shape[axis++], i)); break;
      case 'array': {
        axis++;
        if (!arrayShape) { arrayShape = i.shape; out.push(...i.shape); }
        break;
      }
    }
  }
  while (axis < shape.length) out.push(shape[axis++]);
  return out;
}

export function reduceShape(shape: Dim[], axis: number | number[] | null, keepdims: boolean): Dim[] | UnknownValue {
  if (axis === null) return keepdims ? shape.map(() => 1) : [];
  const axes = (Array.isArray(axis) ? axis : [axis]).map((a) => (a < 0 ? a + shape.length : a));
  if (axes.some((a) => a < 0 || a >= shape.length)) return unk(`axis ${axis} out of range for rank ${shape.length}`);
  return keepdims ? shape.map((d, i) => (axes.includes(i) ? 1 : d)) : shape.filter((_, i) => !axes.includes(i));
}

export function numElements(shape: Dim[]): number | { unknown: string } {
  let n = 1;
  for (const d of shape) {
    if (typeof d !== 'number') return d;
    if (!Number.isInteger(d) || d < 0) return { unknown: `invalid dimension ${d}` };
    n *= d;
  }
  return Number.isSafeInteger(n) ? n : { unknown: 'more than 2^53 elements' };
}
