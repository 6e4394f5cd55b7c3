/**
 * Shape propagation and dtype promotion for array operations (NumPy/JAX and
 * PyTorch semantics). Everything here is a pure function over dimensions
 * that may be unknown: an unknown dimension flows through to the result
 * wherever the operation still makes sense, and a genuine error (shapes that
 * cannot broadcast, a reshape that changes the element count) comes back as
 * `{ kind: 'unknown', reason }` with the reason spelled out.
 */
import type { DType } from '../../../shared/src/facts';
import type { Dim, UnknownValue } from './catalog-types';

export type Index =
  | { kind: 'int'; value: number | { unknown: string } }
  | { kind: 'slice'; start: number | null | { unknown: string }; stop: number | null | { unknown: string }; step: number | null | { unknown: string }; width?: number }
  | { kind: 'newaxis' }
  | { kind: 'ellipsis' }
  | { kind: 'array'; shape: Dim[]; dtype: DType };

export type ShapeResult = Dim[] | UnknownValue;

const unk = (reason: string): UnknownValue => ({ kind: 'unknown', reason });
export const isUnknownShape = (s: ShapeResult): s is UnknownValue => !Array.isArray(s);

/** Formats a shape for messages, writing unknown dimensions as '?'. */
export function fmt(s: Dim[]): string {
  return `[${s.map((d) => (typeof d === 'number' ? d : '?')).join(',')}]`;
}

/** Normalises a possibly negative axis against a rank; undefined when out of range. */
function normAxis(a: number, rank: number): number | undefined {
  const x = a < 0 ? a + rank : a;
  return Number.isInteger(x) && x >= 0 && x < rank ? x : undefined;
}

/**
 * NumPy broadcasting: align trailing axes; sizes must match or be 1
 * (numpy.org/doc/stable/user/basics.broadcasting.html, "General
 * broadcasting rules"). An unknown size paired with 1 stays unknown; paired
 * with a known size other than 1 it is taken to equal that size, since the
 * program would fail otherwise.
 */
export function broadcastShapes(...shapes: Dim[][]): ShapeResult {
  const n = Math.max(0, ...shapes.map((s) => s.length));
  const out: Dim[] = [];
  for (let i = 0; i < n; i++) {
    let d: Dim = 1;
    for (const s of shapes) {
      const x = s[s.length - n + i] ?? 1;
      if (typeof x !== 'number') { if (d === 1 || typeof d !== 'number') d = x; continue; }
      if (x === 1) continue;
      if (typeof d === 'number' && d !== 1 && d !== x) return unk(`cannot broadcast ${shapes.map(fmt).join(' with ')}`);
      d = x;
    }
    out.push(d);
  }
  return out;
}

function sliceLen(n: Dim, s: Extract<Index, { kind: 'slice' }>): Dim {
  const vals = [s.start, s.stop, s.step];
  // `a[i:i + k]` with i not known: at most k (interp.ts sliceWidth), and no more than the axis holds.
  if (s.width !== undefined && vals.some((v) => v !== null && typeof v !== 'number')) return typeof n === 'number' ? Math.min(n, s.width) : s.width;
  if (vals.some((v) => v !== null && typeof v !== 'number')) return { unknown: 'slice bound not known' };
  const step = (s.step as number | null) ?? 1;
  if (typeof n !== 'number') {
    // A window with known non-negative bounds, step 1, of an axis of unknown length (`tokens[p : p + b*t + 1]`
    // with p known): at most stop − start elements, exactly that while it ends inside the axis (slice clamping,
    // CPython Objects/sliceobject.c). x[:], x[::k] and the rest of an unknown axis are still unknown.
    if (step === 1 && typeof s.start === 'number' && typeof s.stop === 'number' && s.start >= 0 && s.stop >= 0) return Math.max(0, s.stop - s.start);
    return n;
  }
  if (step === 0) return { unknown: 'slice step cannot be zero' };
  // Python's slice.indices semantics (CPython Objects/sliceobject.c, PySlice_AdjustIndices).
  const adj = (v: number | null, dflt: number): number => {
    if (v === null) return dflt;
    if (v < 0) { v += n; if (v < 0) v = step < 0 ? -1 : 0; } else if (v >= n) v = step < 0 ? n - 1 : n;
    return v;
  };
  const start = adj(s.start as number | null, step > 0 ? 0 : n - 1);
  const stop = adj(s.stop as number | null, step > 0 ? n : -1);
  if (step > 0) return stop > start ? Math.floor((stop - start - 1) / step) + 1 : 0;
  return start > stop ? Math.floor((start - stop - 1) / -step) + 1 : 0;
}

/**
 * Basic and advanced indexing (numpy.org/doc/stable/user/basics.indexing.html):
 * integers drop an axis, slices keep it, None inserts one, Ellipsis fills,
 * and array indices broadcast together; when advanced indices are separated
 * by a basic index their dimensions move to the front.
 */
export function indexShape(shape: Dim[], idx: Index[]): ShapeResult {
  const consumed = idx.filter((i) => i.kind === 'int' || i.kind === 'slice' || i.kind === 'array').length;
  if (consumed > shape.length) return unk(`too many indices (${consumed}) for an array of rank ${shape.length}`);
  if (idx.filter((i) => i.kind === 'ellipsis').length > 1) return unk('an index can only have a single ellipsis');
  const advanced = idx.filter((i): i is Extract<Index, { kind: 'array' }> => i.kind === 'array');
  let advShape: Dim[] = [];
  if (advanced.length) {
    const b = broadcastShapes(...advanced.map((a) => a.shape));
    if (isUnknownShape(b)) return unk(`index arrays: ${b.reason}`);
    advShape = b;
  }
  const advPos = idx.map((i, k) => (i.kind === 'array' ? k : -1)).filter((k) => k >= 0);
  const contiguous = advPos.length > 0 && advPos[advPos.length - 1] - advPos[0] === advPos.length - 1;
  const out: Dim[] = [];
  let axis = 0;
  let placed = false;
  for (const i of idx) {
    switch (i.kind) {
      case 'newaxis': out.push(1); break;
      case 'ellipsis': {
        const rest = shape.length - consumed;
        for (let k = 0; k < rest; k++) out.push(shape[axis++]);
        break;
      }
      case 'int': {
        const d = shape[axis];
        if (typeof i.value === 'number' && typeof d === 'number' && (i.value >= d || i.value < -d)) {
          return unk(`index ${i.value} is out of bounds for axis ${axis} with size ${d}`);
        }
        axis++;
        break;
      }
      case 'slice': out.push(sliceLen(shape[axis++], i)); break;
      case 'array': {
        axis++;
        if (!placed && contiguous) { out.push(...advShape); placed = true; }
        break;
      }
    }
  }
  while (axis < shape.length) out.push(shape[axis++]);
  return advanced.length && !contiguous ? [...advShape, ...out] : out;
}

/** numElements, but as a number or undefined (unknown). */
function count(shape: Dim[]): number | undefined {
  const n = numElements(shape);
  return typeof n === 'number' ? n : undefined;
}

/**
 * Reshape with at most one -1 (numpy.reshape docs: "One shape dimension can
 * be -1. In this case, the value is inferred from the length of the array").
 */
export function reshapeShape(shape: Dim[], newShape: Dim[]): ShapeResult {
  const minus = newShape.filter((d) => d === -1).length;
  if (minus > 1) return unk('can only specify one unknown dimension (-1) in a reshape');
  if (newShape.some((d) => typeof d === 'number' && (d < -1 || !Number.isInteger(d)))) return unk(`invalid reshape target ${fmt(newShape)}`);
  const total = count(shape);
  const known = newShape.filter((d) => d !== -1);
  const part = count(known);
  if (minus === 1) {
    if (total === undefined || part === undefined) {
      return newShape.map((d) => (d === -1 ? { unknown: `inferred (-1) dimension of a reshape of ${fmt(shape)}` } : d));
    }
    if (part === 0 || total % part !== 0) return unk(`cannot reshape array of shape ${fmt(shape)} into ${fmt(newShape)}`);
    return newShape.map((d) => (d === -1 ? total / part : d));
  }
  if (total !== undefined && part !== undefined && total !== part) {
    return unk(`cannot reshape array of shape ${fmt(shape)} (${total} elements) into ${fmt(newShape)} (${part} elements)`);
  }
  return [...newShape];
}

/** numpy.transpose: reverses the axes by default, else permutes them by `axes`. */
export function transposeShape(shape: Dim[], axes?: number[] | null): ShapeResult {
  if (!axes) return [...shape].reverse();
  if (axes.length !== shape.length) return unk(`axes ${JSON.stringify(axes)} do not match an array of rank ${shape.length}`);
  const norm = axes.map((a) => normAxis(a, shape.length));
  if (norm.some((a) => a === undefined) || new Set(norm).size !== norm.length) return unk(`invalid permutation ${JSON.stringify(axes)} for rank ${shape.length}`);
  return norm.map((a) => shape[a as number]);
}

export function swapaxesShape(shape: Dim[], a1: number, a2: number): ShapeResult {
  const x = normAxis(a1, shape.length);
  const y = normAxis(a2, shape.length);
  if (x === undefined || y === undefined) return unk(`axes ${a1}, ${a2} out of range for rank ${shape.length}`);
  const out = [...shape];
  [out[x], out[y]] = [out[y], out[x]];
  return out;
}

/** numpy.moveaxis with single or multiple source/destination axes. */
export function moveaxisShape(shape: Dim[], source: number | number[], destination: number | number[]): ShapeResult {
  const src = (Array.isArray(source) ? source : [source]).map((a) => normAxis(a, shape.length));
  const dst = (Array.isArray(destination) ? destination : [destination]).map((a) => normAxis(a, shape.length));
  if (src.length !== dst.length || src.some((a) => a === undefined) || dst.some((a) => a === undefined)) return unk('moveaxis: invalid axes');
  const order = shape.map((_, i) => i).filter((i) => !src.includes(i));
  const pairs = dst.map((d, k) => [d as number, src[k] as number]).sort((p, q) => p[0] - q[0]);
  for (const [d, s] of pairs) order.splice(d, 0, s);
  return order.map((i) => shape[i]);
}

/** numpy.expand_dims: axes index the result, which has rank + len(axes). */
export function expandDimsShape(shape: Dim[], axis: number | number[]): ShapeResult {
  const axes = Array.isArray(axis) ? axis : [axis];
  const rank = shape.length + axes.length;
  const norm = axes.map((a) => normAxis(a, rank));
  if (norm.some((a) => a === undefined) || new Set(norm).size !== norm.length) return unk(`expand_dims axis ${JSON.stringify(axis)} out of range`);
  const out: Dim[] = [];
  let k = 0;
  for (let i = 0; i < rank; i++) out.push(norm.includes(i) ? 1 : shape[k++]);
  return out;
}

/**
 * numpy.squeeze: removes the given size-1 axes, or all of them. An unknown
 * axis named explicitly is assumed to be 1; with no axis, unknown axes stay.
 */
export function squeezeShape(shape: Dim[], axis?: number | number[] | null): ShapeResult {
  if (axis === undefined || axis === null) return shape.filter((d) => d !== 1);
  const axes = (Array.isArray(axis) ? axis : [axis]).map((a) => normAxis(a, shape.length));
  if (axes.some((a) => a === undefined)) return unk(`squeeze axis ${JSON.stringify(axis)} out of range for rank ${shape.length}`);
  for (const a of axes) {
    const d = shape[a as number];
    if (typeof d === 'number' && d !== 1) return unk(`cannot squeeze axis ${a} of size ${d}`);
  }
  return shape.filter((_, i) => !axes.includes(i));
}

/** Reductions (sum, mean, ...) over `axis` (None: all axes). */
export function reduceShape(shape: Dim[], axis: number | number[] | null, keepdims: boolean): ShapeResult {
  if (axis === null) return keepdims ? shape.map(() => 1) : [];
  const raw = Array.isArray(axis) ? axis : [axis];
  const axes = raw.map((a) => normAxis(a, shape.length));
  if (axes.some((a) => a === undefined)) return unk(`axis ${JSON.stringify(axis)} out of range for rank ${shape.length}`);
  return keepdims ? shape.map((d, i) => (axes.includes(i) ? 1 : d)) : shape.filter((_, i) => !axes.includes(i));
}

/** Two dimensions that must agree: known and different is an error; otherwise the known one wins. */
function unify(a: Dim, b: Dim, what: string): Dim | UnknownValue {
  if (typeof a === 'number' && typeof b === 'number') return a === b ? a : unk(`${what}: ${a} != ${b}`);
  return typeof a === 'number' ? a : b;
}
const isUnk = (x: Dim | UnknownValue): x is UnknownValue => typeof x === 'object' && 'kind' in x;

/**
 * numpy.matmul rules (numpy.matmul docs, "Notes"): 1-D operands are promoted
 * by prepending/appending a 1 that is removed afterwards; leading (batch)
 * dimensions broadcast.
 */
export function matmulShape(a: Dim[], b: Dim[]): ShapeResult {
  if (a.length === 0 || b.length === 0) return unk('matmul: operands must not be scalars');
  const A = a.length === 1 ? [1, a[0]] : a;
  const B = b.length === 1 ? [b[0], 1] : b;
  const k = unify(A[A.length - 1], B[B.length - 2], `matmul: contracting dimensions of ${fmt(a)} and ${fmt(b)} differ`);
  if (isUnk(k)) return k;
  const batch = broadcastShapes(A.slice(0, -2), B.slice(0, -2));
  if (isUnknownShape(batch)) return unk(`matmul batch dimensions: ${batch.reason}`);
  const out = [...batch];
  if (a.length > 1) out.push(A[A.length - 2]);
  if (b.length > 1) out.push(B[B.length - 1]);
  return out;
}

/**
 * numpy.dot: scalars multiply; N-D · 1-D contracts the last axis; N-D · M-D
 * contracts the last axis of a with the second-to-last of b, with no
 * broadcasting (numpy.dot docs).
 */
export function dotShape(a: Dim[], b: Dim[]): ShapeResult {
  if (a.length === 0) return [...b];
  if (b.length === 0) return [...a];
  const bk = b.length === 1 ? 0 : b.length - 2;
  const k = unify(a[a.length - 1], b[bk], `dot: shapes ${fmt(a)} and ${fmt(b)} not aligned`);
  if (isUnk(k)) return k;
  return [...a.slice(0, -1), ...b.filter((_, i) => i !== bk)];
}

/** numpy.tensordot with an integer or a pair of axis lists. */
export function tensordotShape(a: Dim[], b: Dim[], axes: number | [number[], number[]] = 2): ShapeResult {
  let ax: number[];
  let bx: number[];
  if (typeof axes === 'number') {
    if (axes > a.length || axes > b.length) return unk('tensordot: too many axes');
    ax = a.map((_, i) => i).slice(a.length - axes);
    bx = b.map((_, i) => i).slice(0, axes);
  } else {
    const na = axes[0].map((x) => normAxis(x, a.length));
    const nb = axes[1].map((x) => normAxis(x, b.length));
    if (na.length !== nb.length || na.some((x) => x === undefined) || nb.some((x) => x === undefined)) return unk('tensordot: invalid axes');
    ax = na as number[];
    bx = nb as number[];
  }
  for (let i = 0; i < ax.length; i++) {
    const u = unify(a[ax[i]], b[bx[i]], 'tensordot: shape mismatch');
    if (isUnk(u)) return u;
  }
  return [...a.filter((_, i) => !ax.includes(i)), ...b.filter((_, i) => !bx.includes(i))];
}

/**
 * numpy.einsum (explicit '->' and implicit mode, where the output is the
 * labels appearing once in alphabetical order, after any broadcast '...'
 * dimensions; numpy.einsum docs). Sizes of a repeated label must agree, or
 * be 1 where they broadcast.
 */
function einsumInner(spec: string, shapes: Dim[][]): ShapeResult {
  const s = spec.replace(/\s+/g, '');
  const [lhs, rhsRaw] = s.split('->');
  const terms = lhs.split(',');
  if (terms.length !== shapes.length) return unk(`einsum: ${terms.length} operand terms but ${shapes.length} operands`);
  const sizes = new Map<string, Dim>();
  const counts = new Map<string, number>();
  const ellShapes: Dim[][] = [];
  for (let t = 0; t < terms.length; t++) {
    const term = terms[t];
    const shape = shapes[t];
    const hasEll = term.includes('...');
    const labels = term.replace('...', '').split('');
    if (labels.some((l) => !/[a-zA-Z]/.test(l))) return unk(`einsum: invalid subscripts '${spec}'`);
    if (hasEll ? labels.length > shape.length : labels.length !== shape.length) {
      return unk(`einsum: term '${term}' does not match operand of rank ${shape.length}`);
    }
    const pre = hasEll ? term.indexOf('...') : labels.length;
    const nEll = shape.length - labels.length;
    if (hasEll) ellShapes.push(shape.slice(pre, pre + nEll));
    labels.forEach((l, i) => {
      const d = shape[i < pre ? i : i + nEll];
      counts.set(l, (counts.get(l) ?? 0) + 1);
      const prev = sizes.get(l);
      if (prev === undefined || prev === 1) { sizes.set(l, d); return; }
      if (d === 1) return;
      if (typeof prev === 'number' && typeof d === 'number' && prev !== d) {
        throw new EinsumError(`einsum: label '${l}' has sizes ${prev} and ${d}`);
      }
      if (typeof prev !== 'number') sizes.set(l, d);
    });
  }
  const ell = broadcastShapes(...ellShapes);
  if (isUnknownShape(ell)) return unk(`einsum '...' dimensions: ${ell.reason}`);
  let rhs: string;
  if (rhsRaw === undefined) {
    const once = [...counts.entries()].filter(([, c]) => c === 1).map(([l]) => l).sort();
    rhs = (ellShapes.length ? '...' : '') + once.join('');
  } else rhs = rhsRaw;
  const out: Dim[] = [];
  const rhsHasEll = rhs.includes('...');
  for (const part of rhs.split('...').flatMap((p, i) => (i > 0 ? ['...', p] : [p]))) {
    if (part === '...') { out.push(...ell); continue; }
    for (const l of part) {
      const d = sizes.get(l);
      if (d === undefined) return unk(`einsum: output label '${l}' does not appear in the inputs`);
      out.push(d);
    }
  }
  // An explicit output without '...' sums the broadcast dimensions out (numpy), so they do not appear.
  void rhsHasEll;
  return out;
}
class EinsumError extends Error {}

/** Result shape of numpy/jax/torch einsum; label conflicts come back as unknown. */
export function einsumShape(spec: string, shapes: Dim[][]): ShapeResult {
  try { return einsumInner(spec, shapes); } catch (e) { if (e instanceof EinsumError) return unk(e.message); throw e; }
}

/** numpy.concatenate: all axes but `axis` must agree; `axis` sums (None flattens). */
export function concatShape(shapes: Dim[][], axis: number | null = 0): ShapeResult {
  if (shapes.length === 0) return unk('need at least one array to concatenate');
  if (axis === null) {
    const counts = shapes.map(count);
    return counts.every((c) => c !== undefined) ? [counts.reduce((x, y) => (x as number) + (y as number), 0) as number] : [{ unknown: 'flattened size not known' }];
  }
  const rank = shapes[0].length;
  if (shapes.some((s) => s.length !== rank)) return unk(`concatenate: ranks differ (${shapes.map(fmt).join(', ')})`);
  const ax = normAxis(axis, rank);
  if (ax === undefined) return unk(`concatenate: axis ${axis} out of range for rank ${rank}`);
  const out: Dim[] = [];
  for (let i = 0; i < rank; i++) {
    if (i === ax) {
      const ds = shapes.map((s) => s[i]);
      out.push(ds.every((d) => typeof d === 'number') ? (ds as number[]).reduce((x, y) => x + y, 0) : { unknown: 'concatenated size not known' });
      continue;
    }
    let d: Dim | UnknownValue = shapes[0][i];
    for (const s of shapes.slice(1)) { d = unify(d as Dim, s[i], `concatenate: dimension ${i} differs`); if (isUnk(d)) return d; }
    out.push(d as Dim);
  }
  return out;
}

/** numpy.stack: all shapes equal; a new axis of length len(shapes) at `axis`. */
export function stackShape(shapes: Dim[][], axis = 0): ShapeResult {
  if (shapes.length === 0) return unk('need at least one array to stack');
  const rank = shapes[0].length;
  if (shapes.some((s) => s.length !== rank)) return unk(`stack: all input arrays must have the same shape (${shapes.map(fmt).join(', ')})`);
  const base: Dim[] = [];
  for (let i = 0; i < rank; i++) {
    let d: Dim | UnknownValue = shapes[0][i];
    for (const s of shapes.slice(1)) { d = unify(d as Dim, s[i], 'stack: all input arrays must have the same shape'); if (isUnk(d)) return d; }
    base.push(d as Dim);
  }
  const ax = normAxis(axis, rank + 1);
  if (ax === undefined) return unk(`stack: axis ${axis} out of range`);
  base.splice(ax, 0, shapes.length);
  return base;
}

/**
 * numpy.split / array_split: an integer count (numpy requires equal division,
 * array_split does not) or a list of split points.
 */
export function splitShapes(shape: Dim[], sections: number | number[], axis = 0, exact = true): Dim[][] | UnknownValue {
  const ax = normAxis(axis, shape.length);
  if (ax === undefined) return unk(`split: axis ${axis} out of range for rank ${shape.length}`);
  const n = shape[ax];
  const withLen = (d: Dim): Dim[] => shape.map((x, i) => (i === ax ? d : x));
  if (typeof sections === 'number') {
    if (sections <= 0) return unk('split: number of sections must be positive');
    if (typeof n !== 'number') return Array.from({ length: sections }, () => withLen(n));
    if (exact && n % sections !== 0) return unk(`array split does not result in an equal division (${n} into ${sections})`);
    const q = Math.floor(n / sections);
    const r = n % sections;
    return Array.from({ length: sections }, (_, i) => withLen(q + (i < r ? 1 : 0)));
  }
  if (typeof n !== 'number') return [...sections, 0].map(() => withLen({ unknown: 'split of an unknown axis' }));
  const pts = [0, ...sections.map((p) => Math.min(Math.max(p < 0 ? p + n : p, 0), n)), n];
  return pts.slice(1).map((p, i) => withLen(Math.max(0, p - pts[i])));
}

/**
 * Output spatial size of a convolution (lax.conv_general_dilated docs /
 * torch.nn.Conv2d docs "Shape"): floor((in + pads - dil*(k-1) - 1)/stride) + 1.
 */
export function convOutSize(inp: Dim, kernel: Dim, stride = 1, padLo = 0, padHi = 0, dilation = 1): Dim {
  if (typeof inp !== 'number') return inp;
  if (typeof kernel !== 'number') return kernel;
  return Math.floor((inp + padLo + padHi - dilation * (kernel - 1) - 1) / stride) + 1;
}

/**
 * The number of elements, or unknown when any dimension is unknown, negative
 * or fractional, or the product passes Number.MAX_SAFE_INTEGER (beyond which
 * a double no longer counts exactly).
 */
export function numElements(shape: Dim[]): number | { unknown: string } {
  let n = 1;
  for (const d of shape) {
    if (typeof d !== 'number') return d;
    if (!Number.isInteger(d) || d < 0) return { unknown: `invalid dimension ${d}` };
    n *= d;
    if (!Number.isSafeInteger(n)) return { unknown: `more than 2^53 elements in ${fmt(shape)}` };
  }
  return n;
}

// ------------------------------------------------------------ dtype promotion

/**
 * A dtype operand: an array dtype, or a weakly typed Python scalar
 * ('int' | 'float' | 'bool' literal) that adopts the array's dtype.
 */
export type PromoOperand = DType | 'py-int' | 'py-float' | 'py-bool';

const FLOATS: DType[] = ['float8', 'float16', 'bfloat16', 'float32', 'float64'];
const SINTS: DType[] = ['int4', 'int8', 'int16', 'int32', 'int64'];
const UINTS: DType[] = ['uint8', 'uint16', 'uint32'];
const BITS: Partial<Record<DType, number>> = { int4: 4, int8: 8, int16: 16, int32: 32, int64: 64, uint8: 8, uint16: 16, uint32: 32, float8: 8, float16: 16, bfloat16: 16, float32: 32, float64: 64 };
const cat = (d: DType): 0 | 1 | 2 | 3 | 4 => (d === 'bool' ? 0 : UINTS.includes(d) || SINTS.includes(d) ? 1 : FLOATS.includes(d) ? 3 : 4);

/**
 * Promotes two array dtypes.
 * JAX: the lattice in jax/_src/dtypes.py (_type_promotion_lattice, jax 0.4.30):
 * bool < ints < floats < complex; within floats f16 and bf16 are incomparable
 * so their join is float32 ("jax.numpy type promotion" docs table: bf + f2 → f4);
 * a signed/unsigned mix goes to the next wider signed int (u8 + i8 → i16;
 * u32 + i32 → i64, which x64-off canonicalises to int32); an integer joined
 * with a float takes the float.
 * torch: c10/core/ScalarType.cpp promoteTypes (torch 2.1): the same in these
 * cases (bf16 + f16 → f32, u8 + i8 → i16), except int + float also takes the float.
 */
export function promoteTypes(a: DType, b: DType, lib: 'jax' | 'torch' = 'jax', x64 = false): DType {
  if (a === b) return a;
  const ca = cat(a);
  const cb = cat(b);
  if (ca !== cb) return ca > cb ? a : b;
  if (ca === 4) return a;
  if (ca === 3) {
    if ((a === 'float16' && b === 'bfloat16') || (a === 'bfloat16' && b === 'float16')) return 'float32';
    if (a === 'float8' || b === 'float8') {
      // jax: float8 types promote with f16/bf16 to float32 only through the lattice top; keep the wider one.
      return (BITS[a] ?? 0) >= (BITS[b] ?? 0) ? (a === 'float8' ? b : a) : b;
    }
    return (BITS[a] ?? 0) >= (BITS[b] ?? 0) ? a : b;
  }
  const sa = SINTS.includes(a);
  const sb = SINTS.includes(b);
  if (sa === sb) return (BITS[a] ?? 0) >= (BITS[b] ?? 0) ? a : b;
  const u = sa ? b : a;
  const s = sa ? a : b;
  if ((BITS[s] ?? 0) > (BITS[u] ?? 0)) return s;
  const wider: DType = (BITS[u] ?? 0) >= 32 ? 'int64' : (BITS[u] ?? 0) >= 16 ? 'int32' : 'int16';
  return lib === 'jax' && !x64 && wider === 'int64' ? 'int32' : wider;
}

/**
 * Promotes a list of operands, honouring weak Python scalars: JAX treats
 * Python scalars as weakly typed (jax "Type promotion semantics" docs,
 * "Weakly-typed values"), so `f16_array * 2.0` stays float16 and
 * `int32_array * 2.0` becomes the default float (float32 with x64 off).
 * torch does the same for wrapped numbers (torch.result_type docs: a
 * Python scalar of a higher category than the tensors yields the default
 * dtype of that category, torch.get_default_dtype() = float32).
 */
export function resultType(ops: PromoOperand[], lib: 'jax' | 'torch' = 'jax'): DType {
  const arrays = ops.filter((o): o is DType => o !== 'py-int' && o !== 'py-float' && o !== 'py-bool');
  const weak = ops.filter((o) => o === 'py-int' || o === 'py-float' || o === 'py-bool');
  const defaultInt: DType = lib === 'torch' ? 'int64' : 'int32';
  if (arrays.length === 0) {
    return weak.includes('py-float') ? 'float32' : weak.includes('py-int') ? defaultInt : 'bool';
  }
  let r = arrays.reduce((x, y) => promoteTypes(x, y, lib));
  const c = cat(r);
  if (weak.includes('py-float') && c < 3) r = 'float32';
  else if (weak.includes('py-int') && c < 1) r = defaultInt;
  return r;
}
