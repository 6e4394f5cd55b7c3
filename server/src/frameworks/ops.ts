/**
 * The array-operation catalogue: result shapes and dtypes of jax.numpy,
 * jax.nn, jax.lax, jax.random and torch calls, and of array methods
 * ('jax.Array.reshape', 'torch.Tensor.view'). Each entry is a pure function
 * of already-evaluated arguments built on the shape rules in
 * analysis/shapes.ts, and cites the documentation it mirrors. Unknown
 * dimensions propagate as unknown dimensions; only real errors (shapes that
 * cannot broadcast, a reshape that changes the size) return unknown.
 */
import type { DType } from '../../../shared/src/facts';
import {
  broadcastShapes, concatShape, convOutSize, dotShape, einsumShape, expandDimsShape, fmt, matmulShape, moveaxisShape,
  reduceShape, reshapeShape, resultType, splitShapes, squeezeShape, stackShape, swapaxesShape, tensordotShape, transposeShape,
  type PromoOperand, type ShapeResult,
} from '../interp/shapes';
import { PY_FLOATS, type Args, type ArrayValue, type CatValue, type Dim, type OpEntry, type OpResult } from '../interp/catalog-types';
import { ntuple, poolOutput } from './torch/catalog';

// ------------------------------------------------------------------ helpers

const isArr = (v: CatValue | undefined): v is ArrayValue => typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'array';
const unk = (reason: string): OpResult => ({ kind: 'unknown', reason });
const array = (shape: Dim[], dtype: DType, extra: { view?: boolean; random?: boolean } = {}): OpResult => ({ kind: 'array', shape, dtype, ...extra });
/** Turns a shape result into an op result with the given dtype. */
const out = (s: ShapeResult, dtype: DType, extra: { view?: boolean; random?: boolean } = {}): OpResult => (Array.isArray(s) ? array(s, dtype, extra) : s);
const libOf = (name: string): 'jax' | 'torch' => (name.startsWith('torch') ? 'torch' : 'jax');

const num = (v: CatValue | undefined): number | undefined => (typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : undefined);
const dim = (v: CatValue): Dim => (typeof v === 'number' ? v : { unknown: typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'unknown' ? v.reason : 'dimension not known' });

/** A shape argument: an int, a tuple/list of ints, or (torch) a torch.Size held as a list. */
function shapeArg(v: CatValue | undefined): Dim[] | undefined {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v)) return v.map(dim);
  if (isArr(v)) return undefined;
  return undefined;
}

/** Shape given either as one tuple or as varargs s0, s1, ... (torch.zeros(2, 3), x.view(2, -1)). */
function varShape(a: Args, first: string): Dim[] | undefined {
  const v = a[first];
  if (Array.isArray(v)) return v.map(dim);
  if (v === undefined) return undefined;
  const dims: Dim[] = [dim(v)];
  for (let i = 1; i < 8 && a[`s${i}`] !== undefined; i++) dims.push(dim(a[`s${i}`] as CatValue));
  return dims;
}
const VAR = ['s1', 's2', 's3', 's4', 's5', 's6', 's7'];

const DT_NAMES: Record<string, DType> = {
  float64: 'float64', float32: 'float32', float16: 'float16', bfloat16: 'bfloat16', half: 'float16', float: 'float32', double: 'float64',
  int64: 'int64', int32: 'int32', int16: 'int16', int8: 'int8', uint8: 'uint8', uint16: 'uint16', uint32: 'uint32', bool: 'bool', long: 'int64', int: 'int32',
  complex64: 'complex64',
};
function dtypeOf(v: CatValue | undefined): DType | undefined {
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'dtype') return v.dtype;
  if (typeof v === 'string') return DT_NAMES[v];
  return undefined;
}
const dtypeArg = (v: CatValue | undefined, dflt: DType): DType => dtypeOf(v) ?? dflt;

/** An axis argument: int, list of ints, or None. */
function axisArg(v: CatValue | undefined): number | number[] | null | 'bad' {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return v as number[];
  return 'bad';
}

/**
 * The promotion operand of an argument: arrays contribute their dtype,
 * Python numbers are weakly typed. The interpreter passes Python ints and
 * floats alike as JS numbers, so an integral value reads as an int literal.
 */
function operand(v: CatValue | undefined, float = false): PromoOperand | undefined {
  if (isArr(v)) return v.dtype;
  if (typeof v === 'boolean') return 'py-bool';
  if (typeof v === 'number') return float || !Number.isInteger(v) ? 'py-float' : 'py-int';
  return undefined;
}
/** Whether argument `k` held a Python float (`1.0` reaches the catalogue as the number 1, like the int 1). */
const pyFloat = (a: Args, k: string): boolean => Array.isArray(a[PY_FLOATS]) && (a[PY_FLOATS] as CatValue[]).includes(k);
const scalarShape = (v: CatValue | undefined): Dim[] | undefined => (isArr(v) ? v.shape : typeof v === 'number' || typeof v === 'boolean' ? [] : undefined);

/** Shape of a nested Python list of numbers (jnp.array([[1, 2], [3, 4]]) → [2, 2]). */
function nestedShape(v: CatValue): { shape: Dim[]; float: boolean } | undefined {
  if (typeof v === 'number') return { shape: [], float: !Number.isInteger(v) };
  if (typeof v === 'boolean') return { shape: [], float: false };
  if (isArr(v)) return { shape: v.shape, float: true };
  if (!Array.isArray(v)) return undefined;
  if (v.length === 0) return { shape: [0], float: true };
  const inner = v.map(nestedShape);
  if (inner.some((x) => x === undefined)) return undefined;
  const first = fmt(inner[0]!.shape);
  if (inner.some((x) => fmt(x!.shape) !== first)) return undefined;
  return { shape: [v.length, ...inner[0]!.shape], float: inner.some((x) => x!.float) };
}

/**
 * Output shape of a reduce_window pooling. Per window axis, VALID gives floor((n - w) / s) + 1, SAME (and
 * SAME_LOWER) ceil(n / s), and explicit (lo, hi) pads floor((n + lo + hi - w) / s) + 1 (jax/_src/lax/lax.py
 * padtype_to_pads, which upper-cases a padding string; jax 0.4.30). Which axes the window covers:
 * - flax (flax/linen/pooling.py pool, flax 0.8.5): window_shape is a sequence of k ints over the k axes before the
 *   trailing feature axis, the axes in front of them being batch axes (num_batch_dims = ndim - (k + 1), possibly 0);
 *   strides default to k 1s and must have length k; padding is a string or k (lo, hi) pairs, default 'VALID'. An int
 *   window or strides raises in flax (`len(window_shape)`, `(1,) * n + strides`), so it is left unknown;
 * - haiku (haiku/_src/pool.py _infer_shape, dm-haiku 0.0.12): padding must be exactly 'SAME' or 'VALID' (else
 *   ValueError); an int window/strides becomes (1,) + size on every axis but the channel axis (-1); a shorter
 *   sequence is padded with leading 1s (batch axes); a full-rank one is used as is.
 */
export function poolShape(x: CatValue | undefined, win: CatValue | undefined, str: CatValue | undefined, pad: CatValue | undefined, layout: 'flax' | 'haiku'): OpResult {
  if (!isArr(x)) return unk('no array operand');
  const rank = x.shape.length;
  const ints = (v: CatValue | undefined): number[] | undefined =>
    Array.isArray(v) && v.every((d) => typeof d === 'number') ? (v as number[]) : undefined;
  const ones = (n: number): number[] => Array.from({ length: n }, () => 1);
  let w: number[], s: number[];
  let pads: [number, number][] | 'SAME' | 'VALID';
  if (layout === 'flax') {
    const k = ints(win);
    if (!k) return unk(typeof win === 'number' ? 'flax pooling window_shape must be a tuple (an int raises in flax)' : 'pooling window not known');
    if (k.length + 1 > rank) return unk(`a ${k.length}-D pooling window on a ${rank}-D input`);
    const st = str === undefined || str === null ? ones(k.length) : ints(str);
    if (!st || st.length !== k.length) return unk('pooling strides not known or not of the window\'s length');
    const nb = rank - k.length - 1;
    w = [...ones(nb), ...k, 1];
    s = [...ones(nb), ...st, 1];
    const p = pad === undefined ? 'VALID' : pad;
    if (typeof p === 'string') {
      const u = p.toUpperCase();
      if (u !== 'VALID' && u !== 'SAME' && u !== 'SAME_LOWER') return unk(`pooling padding ${p} is not VALID or SAME`);
      pads = u === 'VALID' ? 'VALID' : 'SAME';
    } else {
      const pairs = Array.isArray(p) && p.length === k.length && p.every((q) => Array.isArray(q) && q.length === 2 && q.every((d) => typeof d === 'number'))
        ? (p as [number, number][]) : undefined;
      if (!pairs) return unk('pooling padding not known');
      pads = [...ones(nb).map((): [number, number] => [0, 0]), ...pairs, [0, 0]];
    }
  } else {
    if (pad !== 'SAME' && pad !== 'VALID') return unk(typeof pad === 'string' ? `haiku pooling padding must be 'SAME' or 'VALID', got '${pad}'` : 'pooling padding not known');
    pads = pad;
    const full = (v: CatValue | undefined): number[] | undefined => {
      if (typeof v === 'number') return Array.from({ length: rank }, (_, d) => (d === 0 || d === rank - 1 ? 1 : v));
      const n = ints(v);
      return n && n.length <= rank ? [...ones(rank - n.length), ...n] : undefined;
    };
    const fw = full(win), fs = full(str);
    if (!fw || !fs) return unk('pooling window or strides not known');
    w = fw; s = fs;
  }
  return array(x.shape.map((n, d) => {
    if (typeof n !== 'number') return n;
    if (pads === 'SAME') return Math.ceil(n / s[d]);
    const [lo, hi] = pads === 'VALID' ? [0, 0] : pads[d];
    return Math.floor((n + lo + hi - w[d]) / s[d]) + 1;
  }), x.dtype);
}

// ------------------------------------------------------------- entry makers

type Maker = (names: string[], citation: string) => OpEntry;

/** zeros/ones/empty(shape, dtype): jnp default float32 with x64 off; torch default dtype float32. */
function creation(names: string[], citation: string, opts: { random?: boolean; fill?: boolean; dflt?: DType } = {}): OpEntry {
  const sig = opts.fill ? ['shape', 'fill_value', 'dtype'] : ['shape', 'dtype'];
  return {
    names, citation, signature: sig,
    result: (a) => {
      const s = shapeArg(a.shape);
      if (!s) return unk('shape argument not known');
      const fillDt = opts.fill ? operand(a.fill_value, pyFloat(a, 'fill_value')) : undefined;
      const d = dtypeOf(a.dtype) ?? (fillDt ? resultType([fillDt], libOf(names[0])) : opts.dflt ?? 'float32');
      return array(s, d, { random: opts.random });
    },
  };
}

/** torch creation with varargs sizes: torch.zeros(2, 3) or torch.zeros((2, 3)). */
function torchCreation(names: string[], citation: string, opts: { random?: boolean; dflt?: DType } = {}): OpEntry {
  return {
    names, citation, signature: ['size', ...VAR], defaults: {},
    result: (a) => {
      const s = varShape(a, 'size');
      return s ? array(s, dtypeArg(a.dtype, opts.dflt ?? 'float32'), { random: opts.random }) : unk('size argument not known');
    },
  };
}

/**
 * The legacy typed constructors (`torch.FloatTensor(3, 4)`, `torch.LongTensor([1, 2])`,
 * `torch.Tensor(n)`), still common in older model code (`nn.Parameter(torch.FloatTensor(in, out))`):
 * integer arguments are sizes (uninitialised memory, like torch.empty); one list or tuple is data
 * (`torch.FloatTensor((3, 4))` is the 2-element tensor [3., 4.]); no argument is an empty tensor.
 * torch/csrc/utils/tensor_new.cpp legacy_tensor_ctor / legacy_new_from_sequence (PyTorch 2.1);
 * torch.Tensor's dtype is the default float32.
 */
const LEGACY_TENSOR_TYPES: [string, DType][] = [
  ['Tensor', 'float32'], ['FloatTensor', 'float32'], ['DoubleTensor', 'float64'], ['HalfTensor', 'float16'],
  ['BFloat16Tensor', 'bfloat16'], ['LongTensor', 'int64'], ['IntTensor', 'int32'], ['ShortTensor', 'int16'],
  ['CharTensor', 'int8'], ['ByteTensor', 'uint8'], ['BoolTensor', 'bool'],
];
function legacyConstructor(name: string, dt: DType): OpEntry {
  return {
    names: [`torch.${name}`], citation: 'torch/csrc/utils/tensor_new.cpp legacy_tensor_ctor (PyTorch 2.1): sizes or a data sequence',
    signature: ['data', ...VAR], defaults: {},
    result: (a) => {
      const first = a.data;
      if (first === undefined) return array([0], dt);
      if (Array.isArray(first)) {
        if (a.s1 !== undefined) return unk('a sequence followed by more arguments');
        const shape: number[] = [];
        let level: CatValue = first;
        while (Array.isArray(level)) {
          shape.push(level.length);
          const inner: CatValue[] = level;
          if (!inner.length) break;
          if (inner.some((x) => Array.isArray(x) !== Array.isArray(inner[0]) || (Array.isArray(x) && x.length !== (inner[0] as CatValue[]).length))) return unk('a ragged data sequence');
          level = inner[0];
        }
        return typeof level === 'number' || typeof level === 'boolean' || (Array.isArray(level) && !level.length) ? array(shape, dt) : unk('data sequence items not known');
      }
      const sizes = [first, ...VAR.map((k) => a[k]).filter((v) => v !== undefined)];
      if (!sizes.every((v) => typeof v === 'number' && Number.isInteger(v) && v >= 0)) return unk('sizes not known');
      return array(sizes as number[], dt);
    },
  };
}

/** *_like(a, dtype=None, shape=None). */
function like(names: string[], citation: string, opts: { fill?: boolean; random?: boolean } = {}): OpEntry {
  return {
    names, citation, signature: opts.fill ? ['a', 'fill_value', 'dtype', 'shape'] : ['a', 'dtype', 'shape'],
    result: (a) => {
      if (!isArr(a.a)) return unk('no array operand');
      return array(shapeArg(a.shape) ?? a.a.shape, dtypeArg(a.dtype, a.a.dtype), { random: opts.random });
    },
  };
}

/** Elementwise n-ary op: broadcast shapes, promote dtypes (weak Python scalars). */
function elementwise(names: string[], citation: string, params: string[], result: 'promote' | 'bool' | 'float' = 'promote'): OpEntry {
  return {
    names, citation, signature: params,
    result: (a) => {
      const keys = params.filter((k) => a[k] !== undefined && a[k] !== null);
      const vals = keys.map((k) => a[k]!);
      if (!vals.some(isArr)) {
        // jax.numpy on Python scalars returns a 0-d array (jnp.sqrt(2048)); weakly typed scalars give the
        // default float32 / int32 with x64 off (jax docs, "Type promotion semantics": weak types).
        if (names[0].startsWith('jax.') && vals.length && vals.every((v) => typeof v === 'number' || typeof v === 'boolean')) {
          const anyFloat = keys.some((k) => typeof a[k] === 'number' && (!Number.isInteger(a[k]) || pyFloat(a, k)));
          return array([], result === 'bool' ? 'bool' : result === 'float' || anyFloat ? 'float32' : 'int32');
        }
        return unk('no array operand');
      }
      const shapes = vals.map(scalarShape);
      if (shapes.some((s) => s === undefined)) return unk('an operand is not known');
      const s = broadcastShapes(...(shapes as Dim[][]));
      const lib = libOf(names[0]);
      const ops = keys.map((k) => operand(a[k], pyFloat(a, k))).filter((o): o is PromoOperand => o !== undefined);
      let dt = resultType(ops, lib);
      if (result === 'bool') dt = 'bool';
      if (result === 'float' && !['float16', 'bfloat16', 'float32', 'float64', 'float8', 'complex64'].includes(dt)) dt = 'float32';
      return out(s, dt);
    },
  };
}
const unary: Maker = (n, c) => elementwise(n, c, ['x']);
const unaryFloat: Maker = (n, c) => elementwise(n, c, ['x'], 'float');
const binary: Maker = (n, c) => elementwise(n, c, ['x', 'y']);
const compare: Maker = (n, c) => elementwise(n, c, ['x', 'y'], 'bool');

/** Activations and normalisations that keep shape and dtype, with an optional axis. */
function sameShape(names: string[], citation: string, sig: string[] = ['x'], view = false): OpEntry {
  return {
    names, citation, signature: sig,
    result: (a) => {
      const x = a[sig[0]];
      return isArr(x) ? array(x.shape, x.dtype, view ? { view } : {}) : unk('no array operand');
    },
  };
}

/** Reductions: sum/mean/max/... over axis (jnp `axis`/`keepdims`, torch `dim`/`keepdim`). */
function reduction(names: string[], citation: string, kind: 'same' | 'float' | 'index' | 'bool' = 'same'): OpEntry {
  return {
    names, citation, signature: ['a', 'axis', 'dtype', 'out', 'keepdims'],
    result: (a) => {
      if (!isArr(a.a)) return unk('no array operand');
      const ax = axisArg(a.axis ?? a.dim);
      if (ax === 'bad') return unk('axis argument not known');
      const s = reduceShape(a.a.shape, ax, a.keepdims === true || a.keepdim === true);
      const lib = libOf(names[0]);
      let dt = dtypeOf(a.dtype) ?? a.a.dtype;
      if (kind === 'index') dt = lib === 'torch' ? 'int64' : 'int32';
      else if (kind === 'bool') dt = 'bool';
      else if (kind === 'float' && !dtypeOf(a.dtype) && cat(dt) < 3) dt = 'float32';
      // jnp.sum of bool/small ints accumulates in the default int (jax.numpy.sum docs, dtype=None).
      else if (kind === 'same' && /\.(sum|prod|cumsum)$/.test(names[0]) && !dtypeOf(a.dtype) && cat(dt) < 3 && dt !== 'int64') dt = lib === 'torch' ? 'int64' : 'int32';
      return out(s, dt);
    },
  };
}
const cat = (d: DType): number => (d === 'bool' ? 0 : d.startsWith('int') || d.startsWith('uint') ? 1 : d.startsWith('float') || d === 'bfloat16' ? 3 : 4);

/** Methods with a varargs shape: x.reshape(2, -1), x.view(2, -1), x.reshape((2, -1)). */
function flattenOp(names: string[], view: boolean): OpEntry {
  return {
    names, citation: 'jax.numpy.ravel docs; torch.flatten docs (start_dim, end_dim)',
    signature: ['a', 'start_dim', 'end_dim'],
    result: (a) => {
      const x = a.a ?? a.input;
      if (!isArr(x)) return unk('no array operand');
      const r = x.shape.length;
      const s0 = num(a.start_dim) ?? 0;
      const e0 = num(a.end_dim) ?? -1;
      const s = s0 < 0 ? s0 + r : s0;
      const e = e0 < 0 ? e0 + r : e0;
      if (r === 0) return array([1], x.dtype);
      const mid = x.shape.slice(s, e + 1);
      const n = mid.every((d) => typeof d === 'number') ? (mid as number[]).reduce((p, q) => p * q, 1) : { unknown: 'flattened size not known' };
      return array([...x.shape.slice(0, s), n, ...x.shape.slice(e + 1)], x.dtype, view ? { view } : {});
    },
  };
}

function reshapeOp(names: string[], citation: string, view = false): OpEntry {
  return {
    names, citation, signature: ['self', 'shape', ...VAR],
    result: (a) => {
      if (!isArr(a.self)) return unk('no array operand');
      const s = varShape(a, a.shape !== undefined ? 'shape' : 'newshape');
      if (!s) return unk('target shape not known');
      return out(reshapeShape(a.self.shape, s), a.self.dtype, view ? { view } : {});
    },
  };
}

function castOp(names: string[], citation: string, to?: DType): OpEntry {
  return {
    names, citation, signature: ['self', 'dtype'],
    result: (a) => {
      if (!isArr(a.self)) return unk('no array operand');
      // Tensor.to(device) or .to(other_tensor): dtype from a tensor argument, else unchanged.
      const target = to ?? dtypeOf(a.dtype) ?? (isArr(a.dtype) ? a.dtype.dtype : undefined) ?? a.self.dtype;
      return array(a.self.shape, target);
    },
  };
}

const J = 'jax.numpy docs (jax 0.4.30)';
const JNN = 'jax.nn docs (jax 0.4.30)';
const LAX = 'jax.lax docs (jax 0.4.30)';
const JR = 'jax.random docs (jax 0.4.30)';
const T = 'torch docs (torch 2.1)';
const TF = 'torch.nn.functional docs (torch 2.1)';
const TT = 'torch.Tensor docs (torch 2.1)';
const jnp = (...n: string[]) => n.map((x) => `jax.numpy.${x}`);
const tch = (...n: string[]) => n.map((x) => `torch.${x}`);
const meth = (...n: string[]) => n.map((x) => `jax.Array.${x}`);
const tm = (...n: string[]) => n.map((x) => `torch.Tensor.${x}`);

/** jax.random samplers: f(key, shape=(), dtype=float32). */
/** squeeze: jnp raises on a non-1 axis; torch leaves it (and returns a view). */
function squeeze(names: string[], citation: string, torch: boolean): OpEntry {
  return {
    names, citation, signature: ['a', 'axis'],
    result: (a) => {
      const x = a.a ?? a.input;
      if (!isArr(x)) return unk('no array operand');
      const ax = axisArg(a.axis ?? a.dim);
      if (ax === 'bad') return unk('squeeze axis not known');
      if (torch && ax !== null) {
        const axes = (Array.isArray(ax) ? ax : [ax]).map((i) => (i < 0 ? i + x.shape.length : i));
        const keep = axes.filter((i) => x.shape[i] === 1 || typeof x.shape[i] !== 'number');
        return out(squeezeShape(x.shape, keep), x.dtype, { view: true });
      }
      return out(squeezeShape(x.shape, ax), x.dtype, torch ? { view: true } : {});
    },
  };
}

/** arange(stop) or arange(start, stop, step); torch spells stop `end`. */
function arange(names: string[], citation: string, intDefault: DType): OpEntry {
  return {
    names, citation, signature: ['start', 'stop', 'step', 'dtype'],
    result: (a) => {
      const stopV = a.stop ?? a.end;
      let start = num(a.start);
      let stop = num(stopV);
      if (stopV === undefined) { stop = start; start = 0; }
      else if (a.start === undefined) start = 0;
      const step = num(a.step) ?? 1;
      const anyFloat = [a.start, stopV, a.step].some((v) => typeof v === 'number' && !Number.isInteger(v));
      const dt = dtypeOf(a.dtype) ?? (anyFloat ? 'float32' : intDefault);
      if (start === undefined || stop === undefined || step === 0) return array([{ unknown: 'arange bounds not known' }], dt);
      return array([Math.max(0, Math.ceil((stop - start) / step))], dt);
    },
  };
}

/** jnp.array / torch.tensor from nested Python lists; only the integer default differs. */
function fromData(names: string[], citation: string, intDefault: DType): OpEntry {
  return {
    names, citation, signature: ['object', 'dtype'],
    result: (a) => {
      const o = a.object ?? a.data;
      if (isArr(o)) return array(o.shape, dtypeArg(a.dtype, o.dtype));
      if (o === undefined) return unk('no data');
      const n = nestedShape(o);
      if (!n) return unk('array data is not a regular nested list of numbers');
      return array(n.shape, dtypeOf(a.dtype) ?? (n.float || pyFloat(a, 'object') || pyFloat(a, 'data') ? 'float32' : intDefault));
    },
  };
}

function jrandom(names: string[], dflt: DType, sig: string[] = ['key', 'shape', 'dtype']): OpEntry {
  return {
    names, citation: JR, signature: sig,
    result: (a) => {
      const s = a.shape === undefined || a.shape === null ? undefined : shapeArg(a.shape);
      // With shape=None, bernoulli/categorical/truncated_normal broadcast their parameters (jax.random docs).
      const params = ['p', 'logits', 'lower', 'upper', 'minval', 'maxval', 'mean', 'a']
        .map((k) => a[k]).filter(isArr).map((x) => x.shape);
      let shape: ShapeResult;
      if (s) shape = s;
      else if (names[0].endsWith('categorical') && params.length) {
        const ax = typeof a.axis === 'number' ? a.axis : -1;
        const b = params[0];
        shape = reduceShape(b, ax, false);
      } else shape = broadcastShapes(...params);
      return out(shape, dtypeArg(a.dtype, dflt), { random: true });
    },
  };
}

// ------------------------------------------------------------- the catalogue

const RAW: OpEntry[] = [
  // ---- jax.numpy constructors
  creation(jnp('zeros', 'empty'), 'jax.numpy.zeros docs (jax 0.4.30): dtype defaults to float (float32 with x64 off)'),
  creation(jnp('ones'), 'jax.numpy.ones docs (jax 0.4.30)'),
  creation(jnp('full'), 'jax.numpy.full docs (jax 0.4.30): dtype from fill_value when None', { fill: true }),
  like(jnp('zeros_like', 'ones_like', 'empty_like'), 'jax.numpy.zeros_like docs (jax 0.4.30)'),
  like(jnp('full_like'), 'jax.numpy.full_like docs (jax 0.4.30)', { fill: true }),
  arange(jnp('arange'), 'jax.numpy.arange docs (jax 0.4.30): length ceil((stop-start)/step); integer default int32 with x64 off', 'int32'),
  arange(['torch.arange'], 'torch.arange docs (2.1): integer arguments give int64, floats the default float32', 'int64'),
  {
    names: jnp('linspace'), citation: 'jax.numpy.linspace docs (jax 0.4.30): num=50', signature: ['start', 'stop', 'num', 'endpoint', 'retstep', 'dtype', 'axis'], defaults: { num: 50 },
    result: (a) => {
      const n = num(a.num);
      const shapes = [a.start, a.stop].map((v) => (isArr(v) ? v.shape : []));
      const b = broadcastShapes(...shapes);
      if (!Array.isArray(b)) return b;
      return array([n ?? { unknown: 'num not known' }, ...b], dtypeArg(a.dtype, 'float32'));
    },
  },
  {
    // torch.linspace(start, end, steps, *, dtype=None) / torch.logspace(start, end, steps, base=10.0, *, dtype=None):
    // "a one-dimensional tensor of size steps"; dtype None is the default float dtype (torch 2.13 docs). Checked:
    // torch.linspace(0, 1000, 1001, dtype=torch.float64).shape == (1001,).
    names: ['torch.linspace', 'torch.logspace'], citation: 'torch.linspace / torch.logspace docs (torch 2.13): a 1-D tensor of size steps, dtype None = the default float dtype', signature: ['start', 'end', 'steps'],
    result: (a) => {
      const n = num(a.steps);
      return array([n ?? { unknown: 'steps not known' }], dtypeArg(a.dtype, 'float32'));
    },
  },
  {
    names: [...jnp('eye'), 'torch.eye'], citation: 'jax.numpy.eye / torch.eye docs: M defaults to N', signature: ['N', 'M', 'k', 'dtype'],
    result: (a) => {
      const n = num(a.N ?? a.n);
      const m = a.M ?? a.m;
      return array([n ?? { unknown: 'N not known' }, typeof m === 'number' ? m : n ?? { unknown: 'M not known' }], dtypeArg(a.dtype, 'float32'));
    },
  },
  {
    names: jnp('identity'), citation: 'jax.numpy.identity docs (jax 0.4.30)', signature: ['n', 'dtype'],
    result: (a) => { const n = num(a.n); return array([n ?? { unknown: 'n not known' }, n ?? { unknown: 'n not known' }], dtypeArg(a.dtype, 'float32')); },
  },
  fromData(jnp('array', 'asarray'), 'jax.numpy.array docs (jax 0.4.30): Python floats give float32 and ints int32 with x64 off', 'int32'),
  fromData(['torch.tensor', 'torch.as_tensor'], 'torch.tensor docs (2.1): ints give int64, floats the default float32', 'int64'),

  // ---- elementwise
  binary(jnp('add', 'subtract', 'multiply', 'power', 'maximum', 'minimum', 'floor_divide', 'mod', 'remainder', 'arctan2', 'hypot', 'logaddexp'), J),
  elementwise(jnp('divide', 'true_divide'), 'jax.numpy.true_divide docs: integer inputs give the default float', ['x', 'y'], 'float'),
  compare([...jnp('greater', 'less', 'greater_equal', 'less_equal', 'equal', 'not_equal', 'logical_and', 'logical_or', 'logical_xor', 'isclose'), ...tch('eq', 'ne', 'gt', 'lt', 'ge', 'le')], J),
  unary(jnp('negative', 'abs', 'absolute', 'sign', 'square', 'floor', 'ceil', 'round', 'conj', 'real', 'positive'), J),
  unaryFloat([...jnp('sqrt', 'exp', 'log', 'log1p', 'expm1', 'tanh', 'sin', 'cos', 'tan', 'arctan', 'reciprocal', 'rsqrt', 'sinh', 'cosh', 'log2', 'exp2', 'erf'), 'jax.lax.exp', 'jax.lax.rsqrt', 'jax.lax.tanh', 'jax.lax.log', 'jax.lax.sqrt'], J),
  compare(jnp('logical_not', 'isnan', 'isinf', 'isfinite'), J),
  binary(['jax.lax.add', 'jax.lax.mul', 'jax.lax.sub', 'jax.lax.div', 'jax.lax.max', 'jax.lax.min', 'jax.lax.pow'], LAX),
  binary(tch('add', 'mul', 'sub', 'multiply', 'subtract', 'maximum', 'minimum', 'pow', 'remainder'), T),
  elementwise(tch('div', 'divide', 'true_divide'), 'torch.div docs: true division promotes ints to the default float', ['x', 'y'], 'float'),
  unaryFloat(tch('exp', 'log', 'sqrt', 'rsqrt', 'tanh', 'sigmoid', 'sin', 'cos', 'erf'), T),
  unary(tch('abs', 'neg', 'square', 'floor', 'ceil', 'round', 'relu'), T),
  elementwise([...jnp('where'), 'torch.where'], 'jax.numpy.where / torch.where docs: broadcast of condition, x and y', ['condition', 'x', 'y'], 'promote'),
  {
    names: [...jnp('clip'), 'torch.clamp', 'torch.clip'], citation: 'jax.numpy.clip docs (jax 0.4.30): broadcast of a, min, max', signature: ['a', 'a_min', 'a_max'],
    result: (a) => {
      const x = a.a ?? a.x;
      if (!isArr(x)) return unk('no array operand');
      const others = [a.a_min, a.a_max, a.min, a.max].filter(isArr).map((v) => v.shape);
      return out(broadcastShapes(x.shape, ...others), x.dtype);
    },
  },

  // ---- jax.nn and torch activations (shape- and dtype-preserving)
  sameShape(['jax.nn.relu', 'jax.nn.gelu', 'jax.nn.silu', 'jax.nn.swish', 'jax.nn.sigmoid', 'jax.nn.tanh', 'jax.nn.softplus', 'jax.nn.elu', 'jax.nn.leaky_relu', 'jax.nn.relu6', 'jax.nn.hard_tanh', 'jax.nn.log_sigmoid', 'jax.nn.celu', 'jax.nn.selu'], JNN),
  sameShape(['jax.nn.softmax', 'jax.nn.log_softmax', 'jax.nn.normalize', 'jax.nn.standardize'], 'jax.nn.softmax docs (jax 0.4.30): same shape as x', ['x', 'axis']),
  // flax/linen/activation.py re-exports these jax.nn functions unchanged (`from jax.nn import relu as relu`, …, flax 0.8.5).
  sameShape(['relu', 'gelu', 'silu', 'swish', 'sigmoid', 'tanh', 'softplus', 'elu', 'leaky_relu', 'relu6', 'hard_tanh', 'log_sigmoid', 'celu', 'selu', 'softmax', 'log_softmax', 'normalize', 'standardize']
    .flatMap((f) => [`flax.linen.${f}`, `flax.linen.activation.${f}`]), 'flax/linen/activation.py (flax 0.8.5): re-exports of jax.nn, same shape as x', ['x', 'axis']),
  {
    // flax/linen/pooling.py (flax 0.8.5) `pool`: window_shape and strides cover the spatial axes between the leading
    // batch axis and the trailing feature axis; lax.reduce_window gives VALID: floor((n - w) / s) + 1, SAME: ceil(n / s).
    names: ['avg_pool', 'max_pool', 'min_pool'].flatMap((f) => [`flax.linen.${f}`, `flax.linen.pooling.${f}`]),
    citation: 'flax/linen/pooling.py pool (flax 0.8.5) over jax.lax.reduce_window', signature: ['inputs', 'window_shape', 'strides', 'padding'],
    result: (a) => poolShape(a.inputs, a.window_shape, a.strides, a.padding, 'flax'),
  },
  {
    // haiku/_src/pool.py (dm-haiku 0.0.12) max_pool/avg_pool(value, window_shape, strides, padding, channel_axis=-1);
    // padding is required.
    names: ['haiku.max_pool', 'haiku.avg_pool', 'haiku._src.pool.max_pool', 'haiku._src.pool.avg_pool'],
    citation: 'haiku/_src/pool.py (dm-haiku 0.0.12) over jax.lax.reduce_window', signature: ['value', 'window_shape', 'strides', 'padding', 'channel_axis'],
    result: (a) => (a.channel_axis === undefined || a.channel_axis === -1
      ? poolShape(a.value, a.window_shape, a.strides, a.padding, 'haiku')
      : unk('haiku pooling with a channel_axis other than -1 is not modelled')),
  },
  {
    // flax/linen/attention.py make_causal_mask(x) (flax 0.8.5): make_attention_mask(idxs, idxs, greater_equal) on
    // idxs = broadcast_to(arange(x.shape[-1]), x.shape) → x.shape[:-1] + (1, L, L), dtype float32.
    names: ['flax.linen.make_causal_mask', 'flax.linen.attention.make_causal_mask'],
    citation: 'flax/linen/attention.py make_causal_mask (flax 0.8.5)', signature: ['x', 'extra_batch_dims', 'dtype'],
    result: (a) => (isArr(a.x) && a.x.shape.length >= 1
      ? array([...a.x.shape.slice(0, -1), 1, a.x.shape[a.x.shape.length - 1], a.x.shape[a.x.shape.length - 1]], dtypeArg(a.dtype, 'float32'))
      : unk('no array operand')),
  },
  sameShape(['torch.nn.functional.relu', 'torch.nn.functional.gelu', 'torch.nn.functional.silu', 'torch.nn.functional.sigmoid', 'torch.nn.functional.tanh', 'torch.nn.functional.leaky_relu', 'torch.nn.functional.elu', 'torch.nn.functional.mish', 'torch.nn.functional.softplus', 'torch.nn.functional.logsigmoid', 'torch.nn.functional.dropout', 'torch.nn.functional.normalize'], TF, ['input']),
  // torch.nn.functional.max_pool{1,2,3}d / avg_pool{1,2,3}d(input, kernel_size, stride=None, padding=0, ...): the
  // pooling modules' output formula (torch/nn/functional.py; pooling.py docs); adaptive pools give output_size.
  ...([1, 2, 3] as const).flatMap((d) => ['max', 'avg'].map((k): OpEntry => ({
    names: [`torch.nn.functional.${k}_pool${d}d`, ...(k === 'max' ? [`torch.max_pool${d}d`] : [])],
    citation: `torch.nn.functional.${k}_pool${d}d docs: floor((h + 2p − d·(k − 1) − 1) / s + 1), stride defaults to kernel_size`,
    signature: ['input', 'kernel_size', 'stride', 'padding', k === 'max' ? 'dilation' : 'ceil_mode', 'ceil_mode'],
    defaults: { stride: null, padding: 0, dilation: 1, ceil_mode: false },
    result: (a) => {
      if (!isArr(a.input)) return unk('no array operand');
      const o = poolOutput(a as Args, a.input, d);
      return 'kind' in o && o.kind === 'array' ? array(o.shape, o.dtype) : unk((o as { reason: string }).reason);
    },
  }))),
  ...([1, 2, 3] as const).flatMap((d) => ['max', 'avg'].map((k): OpEntry => ({
    names: [`torch.nn.functional.adaptive_${k}_pool${d}d`],
    citation: `torch.nn.functional.adaptive_${k}_pool${d}d docs: the last ${d} dimensions become output_size`,
    signature: ['input', 'output_size'],
    result: (a) => {
      const o = ntuple(a.output_size, d);
      if (!isArr(a.input) || !o || a.input.shape.length < d + 1) return unk('output_size not known');
      return array([...a.input.shape.slice(0, a.input.shape.length - d), ...o], a.input.dtype);
    },
  }))),
  sameShape(['torch.nn.functional.softmax', 'torch.nn.functional.log_softmax', 'torch.softmax', 'torch.log_softmax'], TF, ['input', 'dim']),
  sameShape(['torch.nn.functional.layer_norm'], 'torch.nn.functional.layer_norm docs: output has the input shape', ['input', 'normalized_shape', 'weight', 'bias', 'eps']),
  sameShape(tm('softmax', 'log_softmax', 'relu', 'sigmoid', 'tanh', 'exp', 'sqrt', 'abs', 'neg', 'clone', 'detach'), TT, ['self', 'dim']),
  // Tensor.log / cos / ... (elementwise, the input's shape) and Tensor.clamp / clip (torch.clamp docs (torch 2.13):
  // min and max broadcast with the input).
  sameShape(tm('log', 'log1p', 'log2', 'expm1', 'cos', 'sin', 'rsqrt', 'reciprocal', 'square', 'floor', 'ceil', 'round', 'sign', 'erf'), TT, ['self']),
  {
    names: tm('clamp', 'clip', 'clamp_min', 'clamp_max'), citation: 'torch.clamp docs (torch 2.13): min and max broadcast with input', signature: ['self', 'min', 'max'],
    result: (a) => {
      const x = a.self;
      if (!isArr(x)) return unk('no array operand');
      return out(broadcastShapes(x.shape, ...[a.min, a.max].filter(isArr).map((v) => v.shape)), x.dtype);
    },
  },
  {
    names: ['jax.nn.one_hot'], citation: 'jax.nn.one_hot docs (jax 0.4.30): a new axis of num_classes at `axis` (default -1), dtype float32', signature: ['x', 'num_classes', 'dtype', 'axis'],
    result: (a) => {
      if (!isArr(a.x)) return unk('no array operand');
      const n: Dim = num(a.num_classes) ?? { unknown: 'num_classes not known' };
      const ax = num(a.axis) ?? -1;
      const e = expandDimsShape(a.x.shape, ax);
      if (!Array.isArray(e)) return e;
      const at = ax < 0 ? e.length + ax : ax;
      return array(e.map((d, i) => (i === at ? n : d)), dtypeArg(a.dtype, 'float32'));
    },
  },
  {
    names: ['torch.nn.functional.one_hot'], citation: 'torch.nn.functional.one_hot docs: (*, num_classes), int64', signature: ['tensor', 'num_classes'],
    result: (a) => (isArr(a.tensor) ? array([...a.tensor.shape, num(a.num_classes) ?? { unknown: 'num_classes = -1 depends on the data' }], 'int64') : unk('no array operand')),
  },

  // ---- reductions
  reduction([...jnp('sum', 'max', 'min', 'prod', 'amax', 'amin', 'nansum'), ...meth('sum', 'max', 'min', 'prod')], J),
  reduction([...jnp('mean', 'var', 'std', 'nanmean', 'median'), ...meth('mean', 'var', 'std')], J, 'float'),
  reduction(['jax.nn.logsumexp', 'jax.scipy.special.logsumexp', 'torch.logsumexp'], 'jax.nn.logsumexp docs (jax 0.4.30)', 'float'),
  reduction([...jnp('argmax', 'argmin'), ...meth('argmax', 'argmin')], 'jax.numpy.argmax docs (jax 0.4.30): default int dtype (int32 with x64 off)', 'index'),
  reduction([...tch('argmax', 'argmin'), ...tm('argmax', 'argmin')], 'torch.argmax docs (2.1): a LongTensor (int64)', 'index'),
  reduction([...jnp('any', 'all'), ...tch('any', 'all')], J, 'bool'),
  reduction([...tch('sum', 'mean', 'prod', 'amax', 'amin', 'var', 'std'), ...tm('sum', 'mean', 'prod', 'amax', 'amin', 'var', 'std')], 'torch.sum docs (torch 2.1): dim / keepdim'),
  {
    names: [...jnp('cumsum', 'cumprod'), ...tch('cumsum', 'cumprod'), ...tm('cumsum')], citation: 'jax.numpy.cumsum docs: axis=None flattens', signature: ['a', 'axis', 'dtype'],
    result: (a) => {
      const x = a.a ?? a.self ?? a.input;
      if (!isArr(x)) return unk('no array operand');
      const ax = a.axis ?? a.dim;
      if (ax === undefined || ax === null) {
        const n = x.shape.every((d) => typeof d === 'number') ? (x.shape as number[]).reduce((p, q) => p * q, 1) : { unknown: 'flattened size not known' };
        return array([n], dtypeArg(a.dtype, x.dtype));
      }
      return array(x.shape, dtypeArg(a.dtype, x.dtype));
    },
  },

  // ---- linear algebra
  {
    names: [...jnp('matmul'), 'jax.Array.__matmul__', 'torch.matmul', 'torch.Tensor.__matmul__', 'torch.Tensor.matmul', 'jax.lax.batch_matmul'],
    citation: 'numpy.matmul broadcasting rules (jax.numpy.matmul docs, jax 0.4.30; torch.matmul docs 2.1)', signature: ['a', 'b'],
    result: (a) => (isArr(a.a) && isArr(a.b) ? out(matmulShape(a.a.shape, a.b.shape), resultType([a.a.dtype, a.b.dtype])) : unk('matmul operands not known')),
  },
  {
    names: ['torch.bmm'], citation: 'torch.bmm docs: (b,n,m) @ (b,m,p) → (b,n,p), no broadcasting', signature: ['a', 'b'],
    result: (a) => {
      if (!isArr(a.a) || !isArr(a.b)) return unk('bmm operands not known');
      if (a.a.shape.length !== 3 || a.b.shape.length !== 3) return unk('bmm expects 3-D tensors');
      return out(matmulShape(a.a.shape, a.b.shape), resultType([a.a.dtype, a.b.dtype], 'torch'));
    },
  },
  {
    names: [...jnp('dot'), 'torch.dot', 'torch.mm', 'torch.mv'], citation: 'jax.numpy.dot docs (numpy.dot semantics)', signature: ['a', 'b'],
    result: (a) => (isArr(a.a) && isArr(a.b) ? out(dotShape(a.a.shape, a.b.shape), resultType([a.a.dtype, a.b.dtype])) : unk('dot operands not known')),
  },
  {
    names: [...jnp('outer'), 'torch.outer', 'torch.ger'], citation: 'jax.numpy.outer docs: flattened (a.size, b.size)', signature: ['a', 'b'],
    result: (a) => {
      if (!isArr(a.a) || !isArr(a.b)) return unk('outer operands not known');
      const n = (s: Dim[]): Dim => (s.every((d) => typeof d === 'number') ? (s as number[]).reduce((p, q) => p * q, 1) : { unknown: 'size not known' });
      return array([n(a.a.shape), n(a.b.shape)], resultType([a.a.dtype, a.b.dtype]));
    },
  },
  {
    // torch.polar(abs, angle): abs·(cos(angle) + i·sin(angle)), the operands broadcast; float32 operands give complex64
    // (torch.polar docs, torch 2.13: "If the inputs are torch.float32, must be torch.complex64"). float64 gives
    // complex128, which oomlens has no dtype for.
    names: ['torch.polar'], citation: 'torch.polar docs (torch 2.13): broadcast shapes, float32 → complex64', signature: ['abs', 'angle'],
    result: (a) => {
      if (!isArr(a.abs) || !isArr(a.angle)) return unk('polar operands not known');
      if (a.abs.dtype !== 'float32' || a.angle.dtype !== 'float32') return unk('torch.polar of non-float32 operands (complex128) is not modelled');
      const b = broadcastShapes(a.abs.shape, a.angle.shape);
      if (!Array.isArray(b)) return b;
      return array(b, 'complex64');
    },
  },
  {
    names: [...jnp('tensordot'), 'torch.tensordot'], citation: 'jax.numpy.tensordot docs: axes int or pair of sequences', signature: ['a', 'b', 'axes'], defaults: { axes: 2 },
    result: (a) => {
      if (!isArr(a.a) || !isArr(a.b)) return unk('tensordot operands not known');
      const ax = a.axes ?? a.dims;
      let axes: number | [number[], number[]];
      if (typeof ax === 'number') axes = ax;
      else if (Array.isArray(ax) && ax.length === 2) axes = [ax[0], ax[1]].map((v) => (Array.isArray(v) ? v : [v])) as [number[], number[]];
      else return unk('tensordot axes not known');
      return out(tensordotShape(a.a.shape, a.b.shape, axes), resultType([a.a.dtype, a.b.dtype]));
    },
  },
  {
    names: [...jnp('einsum'), 'torch.einsum'], citation: 'jax.numpy.einsum docs (jax 0.4.30) / torch.einsum docs (2.1): explicit and implicit modes, ellipsis broadcasting',
    signature: ['subscripts', 'o0', 'o1', 'o2', 'o3', 'o4', 'o5', 'o6', 'o7'],
    result: (a) => {
      if (typeof a.subscripts !== 'string') return unk('einsum subscripts not known');
      let ops = ['o0', 'o1', 'o2', 'o3', 'o4', 'o5', 'o6', 'o7'].map((k) => a[k]).filter((v) => v !== undefined);
      // torch.einsum also accepts the operands as one list.
      if (ops.length === 1 && Array.isArray(ops[0])) ops = ops[0] as CatValue[];
      if (!ops.every(isArr)) return unk('einsum operands not known');
      const arrs = ops as ArrayValue[];
      return out(einsumShape(a.subscripts, arrs.map((x) => x.shape)), dtypeOf(a.preferred_element_type) ?? resultType(arrs.map((x) => x.dtype)));
    },
  },
  {
    names: ['jax.lax.dot_general'], citation: 'jax.lax.dot_general docs: batch dims, then lhs free, then rhs free',
    signature: ['lhs', 'rhs', 'dimension_numbers', 'precision', 'preferred_element_type'],
    result: (a) => {
      if (!isArr(a.lhs) || !isArr(a.rhs)) return unk('dot_general operands not known');
      const dn = a.dimension_numbers;
      if (!Array.isArray(dn) || dn.length !== 2 || !Array.isArray(dn[0]) || !Array.isArray(dn[1])) return unk('dimension_numbers not known');
      const [[lc, rc], [lb, rb]] = [dn[0] as CatValue[], dn[1] as CatValue[]].map((p) => (p as CatValue[]).map((x) => (Array.isArray(x) ? x : [x]) as number[]));
      const L = a.lhs.shape;
      const R = a.rhs.shape;
      const lfree = L.filter((_, i) => !lc.includes(i) && !lb.includes(i));
      const rfree = R.filter((_, i) => !rc.includes(i) && !rb.includes(i));
      return array([...lb.map((i) => L[i]), ...lfree, ...rfree], dtypeOf(a.preferred_element_type) ?? resultType([a.lhs.dtype, a.rhs.dtype]));
    },
  },
  {
    names: ['torch.nn.functional.linear'], citation: 'torch.nn.functional.linear docs: input (*, in), weight (out, in) → (*, out)', signature: ['input', 'weight', 'bias'],
    result: (a) => {
      if (!isArr(a.input) || !isArr(a.weight)) return unk('linear operands not known');
      const w = a.weight.shape;
      return out(matmulShape(a.input.shape, w.length === 2 ? [w[1], w[0]] : w), a.input.dtype);
    },
  },
  {
    names: ['torch.nn.functional.scaled_dot_product_attention'], citation: 'torch.nn.functional.scaled_dot_product_attention docs (2.1): (N,...,L,E),(N,...,S,E),(N,...,S,Ev) → (N,...,L,Ev)',
    signature: ['query', 'key', 'value', 'attn_mask', 'dropout_p', 'is_causal', 'scale'],
    result: (a) => {
      if (!isArr(a.query) || !isArr(a.value)) return unk('attention operands not known');
      const q = a.query.shape;
      const v = a.value.shape;
      return array([...q.slice(0, -1), v[v.length - 1]], a.query.dtype);
    },
  },
  {
    names: ['jax.nn.dot_product_attention'], citation: 'jax.nn.dot_product_attention docs (jax 0.4.31): query [B,T,N,H] → [B,T,N,H]', signature: ['query', 'key', 'value'],
    result: (a) => (isArr(a.query) ? array(a.query.shape, a.query.dtype) : unk('query not known')),
  },
  {
    names: ['torch.nn.functional.cross_entropy', 'torch.nn.functional.mse_loss', 'torch.nn.functional.nll_loss', 'torch.nn.functional.binary_cross_entropy_with_logits'],
    citation: "torch.nn.functional.cross_entropy docs: reduction='mean' gives a scalar", signature: ['input', 'target'],
    result: (a) => {
      if (!isArr(a.input)) return unk('no array operand');
      if (a.reduction === 'none') return array(a.input.shape.length > 1 ? [a.input.shape[0], ...a.input.shape.slice(2)] : [], a.input.dtype);
      return array([], a.input.dtype);
    },
  },
  {
    names: ['torch.nn.functional.embedding'], citation: 'torch.nn.functional.embedding docs: (*) indices, (V, D) weight → (*, D)', signature: ['input', 'weight'],
    result: (a) => (isArr(a.input) && isArr(a.weight) ? array([...a.input.shape, a.weight.shape[1]], a.weight.dtype) : unk('embedding operands not known')),
  },

  // ---- shape manipulation
  reshapeOp(['jax.Array.reshape', 'torch.Tensor.reshape'], 'jax.Array.reshape / torch.Tensor.reshape docs: one -1 inferred'),
  reshapeOp(['torch.Tensor.view'], 'torch.Tensor.view docs (2.1): returns a view', true),
  {
    names: [...jnp('reshape'), 'jax.lax.reshape', 'torch.reshape'], citation: 'jax.numpy.reshape docs (jax 0.4.30): one -1 inferred', signature: ['a', 'newshape'],
    result: (a) => {
      const x = a.a ?? a.operand ?? a.input;
      if (!isArr(x)) return unk('no array operand');
      const s = shapeArg(a.newshape ?? a.shape ?? a.new_sizes);
      return s ? out(reshapeShape(x.shape, s), x.dtype) : unk('target shape not known');
    },
  },
  {
    names: [...jnp('transpose', 'permute_dims'), 'jax.Array.transpose', 'torch.permute', 'torch.Tensor.permute', 'jax.lax.transpose'],
    citation: 'jax.numpy.transpose docs: reverses axes by default; torch.permute docs: a view', signature: ['a', 'axes', ...VAR],
    result: (a) => {
      const x = a.a ?? a.input ?? a.operand;
      if (!isArr(x)) return unk('no array operand');
      let axes: number[] | undefined;
      const first = a.axes ?? a.dims ?? a.permutation;
      if (Array.isArray(first)) axes = first as number[];
      else if (typeof first === 'number') axes = [first, ...VAR.map((k) => a[k]).filter((v): v is number => typeof v === 'number')];
      return out(transposeShape(x.shape, axes), x.dtype, { view: true });
    },
  },
  {
    names: ['jax.Array.T', 'torch.Tensor.T', 'torch.Tensor.t', 'torch.t'], citation: 'jax.Array.T / torch.Tensor.T docs: reversed axes', signature: ['self'],
    result: (a) => (isArr(a.self) ? out(transposeShape(a.self.shape), a.self.dtype, { view: true }) : unk('no array operand')),
  },
  {
    names: ['torch.Tensor.mT', 'jax.Array.mT'], citation: 'torch.Tensor.mT docs: the last two dimensions transposed', signature: ['self'],
    result: (a) => (isArr(a.self) ? out(swapaxesShape(a.self.shape, -1, -2), a.self.dtype, { view: true }) : unk('no array operand')),
  },
  {
    names: [...jnp('swapaxes'), 'jax.Array.swapaxes', 'torch.transpose', 'torch.Tensor.transpose', 'torch.swapaxes', 'torch.Tensor.swapaxes'],
    citation: 'jax.numpy.swapaxes docs; torch.transpose docs (a view)', signature: ['a', 'axis1', 'axis2'],
    result: (a) => {
      const x = a.a ?? a.input;
      const i = num(a.axis1 ?? a.dim0);
      const j = num(a.axis2 ?? a.dim1);
      if (!isArr(x) || i === undefined || j === undefined) return unk('swapaxes arguments not known');
      return out(swapaxesShape(x.shape, i, j), x.dtype, { view: true });
    },
  },
  {
    names: [...jnp('moveaxis'), 'torch.movedim', 'torch.moveaxis', 'torch.Tensor.movedim'], citation: 'jax.numpy.moveaxis docs', signature: ['a', 'source', 'destination'],
    result: (a) => {
      const x = a.a ?? a.input;
      const s = a.source;
      const d = a.destination;
      if (!isArr(x) || (typeof s !== 'number' && !Array.isArray(s)) || (typeof d !== 'number' && !Array.isArray(d))) return unk('moveaxis arguments not known');
      return out(moveaxisShape(x.shape, s as number | number[], d as number | number[]), x.dtype, { view: true });
    },
  },
  {
    names: [...jnp('expand_dims'), 'torch.unsqueeze', 'torch.Tensor.unsqueeze', 'jax.lax.expand_dims'], citation: 'jax.numpy.expand_dims docs; torch.unsqueeze docs (a view)', signature: ['a', 'axis'],
    result: (a) => {
      const x = a.a ?? a.input;
      const ax = a.axis ?? a.dim ?? a.dimensions;
      if (!isArr(x) || (typeof ax !== 'number' && !Array.isArray(ax))) return unk('expand_dims arguments not known');
      return out(expandDimsShape(x.shape, ax as number | number[]), x.dtype, { view: true });
    },
  },
  squeeze([...jnp('squeeze'), 'jax.Array.squeeze'], 'jax.numpy.squeeze docs (jax 0.4.30): squeezing an axis whose size is not 1 is an error', false),
  squeeze(['torch.squeeze', 'torch.Tensor.squeeze'], 'torch.squeeze docs (2.1): a view; a dim whose size is not 1 is left unchanged', true),
  flattenOp([...jnp('ravel'), 'jax.Array.ravel', 'jax.Array.flatten'], false),
  // torch.flatten returns a view of a contiguous input (torch.flatten docs; aten `flatten` reshapes with `view`).
  flattenOp(['torch.flatten', 'torch.Tensor.flatten', 'torch.ravel'], true),
  {
    names: [...jnp('concatenate', 'concat'), 'torch.cat', 'torch.concat', 'torch.concatenate', 'jax.lax.concatenate'], citation: 'jax.numpy.concatenate / torch.cat docs', signature: ['arrays', 'axis'], defaults: {},
    result: (a) => {
      const xs = a.arrays ?? a.tensors ?? a.operands;
      if (!Array.isArray(xs) || !xs.every(isArr)) return unk('concatenated arrays not known');
      const arrs = xs as ArrayValue[];
      const ax = a.axis === undefined ? (a.dim ?? a.dimension ?? 0) : a.axis;
      if (ax !== null && typeof ax !== 'number') return unk('axis not known');
      return out(concatShape(arrs.map((x) => x.shape), ax), resultType(arrs.map((x) => x.dtype)));
    },
  },
  {
    names: [...jnp('stack'), 'torch.stack'], citation: 'jax.numpy.stack / torch.stack docs: new axis', signature: ['arrays', 'axis'],
    result: (a) => {
      const xs = a.arrays ?? a.tensors;
      if (!Array.isArray(xs) || !xs.every(isArr)) return unk('stacked arrays not known');
      const arrs = xs as ArrayValue[];
      const ax = num(a.axis ?? a.dim) ?? 0;
      return out(stackShape(arrs.map((x) => x.shape), ax), resultType(arrs.map((x) => x.dtype)));
    },
  },
  {
    names: [...jnp('split', 'array_split')], citation: 'jax.numpy.split docs: equal sections or split points', signature: ['ary', 'indices_or_sections', 'axis'],
    result: (a) => {
      const x = a.ary;
      const s = a.indices_or_sections;
      if (!isArr(x) || (typeof s !== 'number' && !Array.isArray(s))) return unk('split arguments not known');
      const r = splitShapes(x.shape, s as number | number[], num(a.axis) ?? 0, true);
      return Array.isArray(r) ? { kind: 'arrays', items: r.map((shape) => ({ shape, dtype: x.dtype })) } : r;
    },
  },
  {
    names: ['torch.split', 'torch.Tensor.split'], citation: 'torch.split docs (2.1): chunks of split_size_or_sections (last may be smaller); views', signature: ['tensor', 'split_size_or_sections', 'dim'],
    result: (a) => {
      const x = a.tensor ?? a.self;
      const s = a.split_size_or_sections ?? a.split_size;
      const ax = num(a.dim) ?? 0;
      if (!isArr(x)) return unk('no array operand');
      const axis = ax < 0 ? ax + x.shape.length : ax;
      const n = x.shape[axis];
      if (Array.isArray(s)) {
        return { kind: 'arrays', items: (s as CatValue[]).map((k) => ({ shape: x.shape.map((d, i) => (i === axis ? dim(k) : d)), dtype: x.dtype })) };
      }
      if (typeof s !== 'number' || typeof n !== 'number') return unk('split size or axis length not known');
      const items: { shape: Dim[]; dtype: DType }[] = [];
      for (let at = 0; at < n; at += s) items.push({ shape: x.shape.map((d, i) => (i === axis ? Math.min(s, n - at) : d)), dtype: x.dtype });
      return { kind: 'arrays', items };
    },
  },
  {
    // QR of a (batch of) matrices: Q [..., m, k] and R [..., k, n], k = min(m, n), in the "reduced" mode (the default of
    // torch.linalg.qr and of torch.qr's some=True; "complete" makes Q [..., m, m] and R [..., m, n]). glow-tts
    // initialises its invertible 1×1 convolutions with `torch.qr(torch.FloatTensor(c, c).normal_())[0]`.
    names: ['torch.linalg.qr', 'torch.qr', 'torch.Tensor.qr', 'jax.numpy.linalg.qr'], signature: ['A', 'mode'],
    citation: 'torch.linalg.qr docs (2.1): mode="reduced" default, Q (*, m, k), R (*, k, n), k = min(m, n); torch.qr(some=True) the same; jax.numpy.linalg.qr mode="reduced"',
    result: (a) => {
      const x = a.A ?? a.self ?? a.input ?? a.a;
      if (!isArr(x) || x.shape.length < 2) return unk('qr of an operand that is not a known matrix');
      const m = x.shape[x.shape.length - 2], n = x.shape[x.shape.length - 1];
      const batch = x.shape.slice(0, -2);
      const complete = a.mode === 'complete' || a.some === false;
      if (typeof m !== 'number' || typeof n !== 'number') return unk('qr of a matrix whose size is not known');
      const k = complete ? m : Math.min(m, n);
      return { kind: 'arrays', items: [{ shape: [...batch, m, k], dtype: x.dtype }, { shape: [...batch, k, n], dtype: x.dtype }] };
    },
  },
  {
    // A tuple of views, one per index along dim, each without that dimension (timm's `q, k, v = qkv.unbind(0)`).
    names: ['torch.unbind', 'torch.Tensor.unbind'], citation: 'torch.unbind docs (2.1): "Returns a tuple of all slices along a given dimension, already without it"; views', signature: ['input', 'dim'],
    result: (a) => {
      const x = a.input ?? a.self;
      const ax = num(a.dim) ?? 0;
      if (!isArr(x)) return unk('no array operand');
      const axis = ax < 0 ? ax + x.shape.length : ax;
      const n = x.shape[axis];
      if (typeof n !== 'number' || axis < 0 || axis >= x.shape.length) return unk('unbind of an axis whose length is not known');
      return { kind: 'arrays', view: true, items: Array.from({ length: n }, () => ({ shape: x.shape.filter((_, i) => i !== axis), dtype: x.dtype })) };
    },
  },
  {
    names: ['torch.chunk', 'torch.Tensor.chunk'], citation: 'torch.chunk docs (2.1): chunks of ceil(n/chunks); may return fewer', signature: ['input', 'chunks', 'dim'],
    result: (a) => {
      const x = a.input ?? a.self;
      const c = num(a.chunks);
      const ax = num(a.dim) ?? 0;
      if (!isArr(x) || c === undefined) return unk('chunk arguments not known');
      const axis = ax < 0 ? ax + x.shape.length : ax;
      const n = x.shape[axis];
      if (typeof n !== 'number') return { kind: 'arrays', items: Array.from({ length: c }, () => ({ shape: x.shape.map((d, i) => (i === axis ? { unknown: 'chunk of an unknown axis' } : d)), dtype: x.dtype })) };
      const size = Math.ceil(n / c);
      const items: { shape: Dim[]; dtype: DType }[] = [];
      for (let at = 0; at < n; at += size) items.push({ shape: x.shape.map((d, i) => (i === axis ? Math.min(size, n - at) : d)), dtype: x.dtype });
      return { kind: 'arrays', items };
    },
  },
  {
    names: ['torch.narrow', 'torch.Tensor.narrow'], citation: 'torch.narrow docs: a view of length `length` along dim', signature: ['input', 'dim', 'start', 'length'],
    result: (a) => {
      const x = a.input ?? a.self;
      const ax = num(a.dim);
      if (!isArr(x) || ax === undefined) return unk('narrow arguments not known');
      const axis = ax < 0 ? ax + x.shape.length : ax;
      return array(x.shape.map((d, i) => (i === axis ? dim(a.length ?? null) : d)), x.dtype, { view: true });
    },
  },
  {
    names: [...jnp('tile')], citation: 'jax.numpy.tile docs: reps padded with leading 1s', signature: ['A', 'reps'],
    result: (a) => {
      if (!isArr(a.A)) return unk('no array operand');
      const reps = shapeArg(a.reps);
      if (!reps) return unk('reps not known');
      const n = Math.max(reps.length, a.A.shape.length);
      const s = [...Array(n - a.A.shape.length).fill(1), ...a.A.shape] as Dim[];
      const r = [...Array(n - reps.length).fill(1), ...reps] as Dim[];
      return array(s.map((d, i) => (typeof d === 'number' && typeof r[i] === 'number' ? d * (r[i] as number) : { unknown: 'tiled size not known' })), a.A.dtype);
    },
  },
  {
    names: ['torch.Tensor.repeat'], citation: 'torch.Tensor.repeat docs (2.1): like numpy.tile, sizes as varargs', signature: ['self', 'shape', ...VAR],
    result: (a) => {
      if (!isArr(a.self)) return unk('no array operand');
      const reps = varShape(a, 'shape');
      if (!reps || reps.length < a.self.shape.length) return unk('repeat sizes not known (fewer than the rank)');
      const s = [...Array(reps.length - a.self.shape.length).fill(1), ...a.self.shape] as Dim[];
      return array(s.map((d, i) => (typeof d === 'number' && typeof reps[i] === 'number' ? d * (reps[i] as number) : { unknown: 'repeated size not known' })), a.self.dtype);
    },
  },
  {
    names: [...jnp('repeat'), 'jax.Array.repeat', 'torch.repeat_interleave', 'torch.Tensor.repeat_interleave'], citation: 'jax.numpy.repeat docs: axis=None flattens', signature: ['a', 'repeats', 'axis'],
    result: (a) => {
      const x = a.a ?? a.input;
      const r = num(a.repeats);
      if (!isArr(x)) return unk('no array operand');
      const ax = a.axis ?? a.dim;
      if (r === undefined) return unk('repeats not known (per-element repeats depend on the data)');
      if (ax === undefined || ax === null) {
        const n = x.shape.every((d) => typeof d === 'number') ? (x.shape as number[]).reduce((p, q) => p * q, 1) * r : { unknown: 'size not known' };
        return array([n], x.dtype);
      }
      if (typeof ax !== 'number') return unk('axis not known');
      const axis = ax < 0 ? ax + x.shape.length : ax;
      return array(x.shape.map((d, i) => (i === axis ? (typeof d === 'number' ? d * r : d) : d)), x.dtype);
    },
  },
  {
    names: [...jnp('broadcast_to'), 'torch.broadcast_to', 'torch.Tensor.expand', 'jax.lax.broadcast_in_dim', 'torch.Tensor.expand_as'],
    citation: 'jax.numpy.broadcast_to docs; torch.Tensor.expand docs (a view; -1 keeps the size); lax.broadcast_in_dim docs', signature: ['array', 'shape', ...VAR],
    result: (a) => {
      const x = a.array ?? a.input ?? a.operand;
      if (!isArr(x)) return unk('no array operand');
      if (isArr(a.shape)) return array(a.shape.shape, x.dtype, { view: true });
      const s = varShape(a, 'shape');
      if (!s) return unk('target shape not known');
      const bd = a.broadcast_dimensions;
      if (Array.isArray(bd)) return array(s, x.dtype);
      const off = s.length - x.shape.length;
      if (off < 0) return unk(`cannot broadcast ${fmt(x.shape)} to ${fmt(s)}`);
      const full = s.map((d, i) => (d === -1 ? x.shape[i - off] ?? { unknown: '-1 in a new leading dimension' } : d));
      const b = broadcastShapes(x.shape, full);
      if (!Array.isArray(b) || fmt(b) !== fmt(full)) return unk(`cannot broadcast ${fmt(x.shape)} to ${fmt(full)}`);
      return array(full, x.dtype, { view: true });
    },
  },
  {
    names: [...jnp('take'), 'jax.Array.take', 'torch.take'], citation: 'jax.numpy.take docs: axis=None indexes the flattened array', signature: ['a', 'indices', 'axis'],
    result: (a) => {
      if (!isArr(a.a)) return unk('no array operand');
      const idx = isArr(a.indices) ? a.indices.shape : typeof a.indices === 'number' ? [] : Array.isArray(a.indices) ? [a.indices.length] : undefined;
      if (!idx) return unk('indices not known');
      const ax = num(a.axis);
      if (ax === undefined) return array(idx, a.a.dtype);
      const axis = ax < 0 ? ax + a.a.shape.length : ax;
      return array([...a.a.shape.slice(0, axis), ...idx, ...a.a.shape.slice(axis + 1)], a.a.dtype);
    },
  },
  sameShape([...jnp('tril', 'triu'), 'torch.tril', 'torch.triu'], 'jax.numpy.tril docs: same shape', ['m', 'k']),
  sameShape(['torch.Tensor.masked_fill', 'torch.masked_fill'], 'torch.Tensor.masked_fill docs: same shape and dtype', ['self', 'mask', 'value']),
  // A copy in page-locked host memory (the result stays on the host, where the source is).
  sameShape(['torch.Tensor.pin_memory'], 'torch.Tensor.pin_memory docs (2.1): copies the tensor to pinned memory, if it is not already pinned', ['self']),
  sameShape(['torch.Tensor.contiguous'], 'torch.Tensor.contiguous docs: returns self when already contiguous', ['self'], true),
  {
    names: [...jnp('pad'), 'torch.nn.functional.pad'], citation: 'jax.numpy.pad docs (pad_width per axis); torch.nn.functional.pad docs (pairs from the last dim backwards)', signature: ['array', 'pad_width'],
    result: (a) => {
      const x = a.array ?? a.input;
      if (!isArr(x)) return unk('no array operand');
      const r = x.shape.length;
      const add: Dim[] = x.shape.map(() => 0);
      if (a.pad !== undefined) {
        const p = a.pad;
        if (!Array.isArray(p) || !p.every((v) => typeof v === 'number')) return unk('pad not known');
        for (let k = 0; k * 2 < p.length; k++) add[r - 1 - k] = (p[2 * k] as number) + ((p[2 * k + 1] as number) ?? 0);
      } else {
        const pw = a.pad_width;
        if (typeof pw === 'number') add.fill(2 * pw);
        else if (Array.isArray(pw) && pw.length === 2 && pw.every((v) => typeof v === 'number')) add.fill((pw[0] as number) + (pw[1] as number));
        else if (Array.isArray(pw) && pw.length === r) pw.forEach((v, i) => { add[i] = Array.isArray(v) && v.every((q) => typeof q === 'number') ? (v as number[]).reduce((p, q) => p + q, 0) : typeof v === 'number' ? 2 * v : { unknown: 'pad not known' }; });
        else return unk('pad_width not known');
      }
      return array(x.shape.map((d, i) => (typeof d === 'number' && typeof add[i] === 'number' ? d + (add[i] as number) : { unknown: 'padded size not known' })), x.dtype);
    },
  },

  // ---- casts
  castOp(['jax.Array.astype', 'jax.numpy.astype', 'torch.Tensor.to', 'torch.Tensor.type', 'jax.lax.convert_element_type'], 'jax.Array.astype / torch.Tensor.to docs: same shape, new dtype'),
  castOp(['torch.Tensor.cuda', 'torch.Tensor.cpu'], 'torch.Tensor.cuda / .cpu docs: the same shape and dtype on another device'),
  castOp(['torch.Tensor.float'], 'torch.Tensor.float docs: float32', 'float32'),
  castOp(['torch.Tensor.half'], 'torch.Tensor.half docs: float16', 'float16'),
  castOp(['torch.Tensor.bfloat16'], 'torch.Tensor.bfloat16 docs', 'bfloat16'),
  castOp(['torch.Tensor.double'], 'torch.Tensor.double docs', 'float64'),
  castOp(['torch.Tensor.long'], 'torch.Tensor.long docs', 'int64'),
  castOp(['torch.Tensor.int'], 'torch.Tensor.int docs', 'int32'),
  castOp(['torch.Tensor.bool'], 'torch.Tensor.bool docs', 'bool'),

  // ---- plain values
  {
    names: ['torch.Tensor.size', 'jax.Array.shape', 'torch.Tensor.shape'], citation: 'torch.Tensor.size docs: size(dim) is an int, size() a torch.Size', signature: ['self', 'dim'],
    result: (a) => {
      if (!isArr(a.self)) return unk('no array operand');
      const toV = (d: Dim): CatValue => (typeof d === 'number' ? d : { kind: 'unknown', reason: d.unknown });
      const d = num(a.dim);
      if (d !== undefined) { const x = a.self.shape[d < 0 ? d + a.self.shape.length : d]; return x === undefined ? unk('dim out of range') : { kind: 'value', value: toV(x) }; }
      return { kind: 'value', value: a.self.shape.map(toV) };
    },
  },
  {
    names: ['torch.Tensor.numel', 'torch.numel', 'jax.Array.size', 'jax.numpy.size'], citation: 'torch.numel docs', signature: ['self'],
    result: (a) => {
      if (!isArr(a.self)) return unk('no array operand');
      const s = a.self.shape;
      if (!s.every((d) => typeof d === 'number')) return unk('size not known');
      const n = (s as number[]).reduce((p, q) => p * q, 1);
      return Number.isSafeInteger(n) ? { kind: 'value', value: n } : unk('more than 2^53 elements');
    },
  },
  {
    names: ['torch.Tensor.dim', 'jax.Array.ndim', 'jax.numpy.ndim', 'torch.Tensor.ndim'], citation: 'torch.Tensor.dim docs', signature: ['self'],
    result: (a) => (isArr(a.self) ? { kind: 'value', value: a.self.shape.length } : unk('no array operand')),
  },

  // ---- torch constructors
  torchCreation(tch('zeros', 'ones', 'empty'), 'torch.zeros docs (2.1): default dtype float32 (torch.get_default_dtype)'),
  ...LEGACY_TENSOR_TYPES.map(([name, dt]) => legacyConstructor(name, dt)),
  torchCreation(tch('randn', 'rand'), 'torch.randn docs (2.1)', { random: true }),
  {
    names: ['torch.full'], citation: 'torch.full docs (2.1): dtype inferred from fill_value (int64 / default float / bool)', signature: ['size', 'fill_value'],
    result: (a) => {
      const s = shapeArg(a.size);
      if (!s) return unk('size not known');
      const f = a.fill_value;
      const dflt: DType = typeof f === 'boolean' ? 'bool' : typeof f === 'number' && Number.isInteger(f) && !pyFloat(a, 'fill_value') ? 'int64' : 'float32';
      return array(s, dtypeArg(a.dtype, dflt));
    },
  },
  {
    names: ['torch.randint'], citation: 'torch.randint docs (2.1): randint(low=0, high, size), dtype int64', signature: ['low', 'high', 'size'],
    result: (a) => {
      // randint(high, size) and randint(low, high, size) share positions; the size is whichever is a tuple.
      const s = shapeArg(Array.isArray(a.size) ? a.size : Array.isArray(a.high) ? a.high : undefined);
      return s ? array(s, dtypeArg(a.dtype, 'int64'), { random: true }) : unk('size not known');
    },
  },
  like(tch('zeros_like', 'ones_like', 'empty_like'), 'torch.zeros_like docs (2.1)'),
  like(tch('randn_like', 'rand_like'), 'torch.randn_like docs (2.1)', { random: true }),
  like(tch('full_like'), 'torch.full_like docs (2.1)', { fill: true }),

  // ---- jax.random (keys themselves are special-cased by the interpreter)
  {
    names: ['jax.random.PRNGKey', 'jax.random.key'], citation: 'jax.random.PRNGKey docs (jax 0.4.30)', signature: ['seed'],
    result: () => ({ kind: 'value', value: { kind: 'opaque', name: 'jax.random.key' } }),
  },
  jrandom(['jax.random.normal', 'jax.random.uniform'], 'float32', ['key', 'shape', 'dtype', 'minval', 'maxval']),
  jrandom(['jax.random.truncated_normal'], 'float32', ['key', 'lower', 'upper', 'shape', 'dtype']),
  jrandom(['jax.random.bernoulli'], 'bool', ['key', 'p', 'shape']),
  jrandom(['jax.random.randint'], 'int32', ['key', 'shape', 'minval', 'maxval', 'dtype']),
  jrandom(['jax.random.categorical'], 'int32', ['key', 'logits', 'axis', 'shape']),
  {
    names: ['jax.random.permutation'], citation: 'jax.random.permutation docs: an int gives arange(n) permuted; an array keeps its shape', signature: ['key', 'x', 'axis'],
    result: (a) => (typeof a.x === 'number' ? array([a.x], 'int32', { random: true }) : isArr(a.x) ? array(a.x.shape, a.x.dtype, { random: true }) : unk('x not known')),
  },
  {
    names: ['jax.random.choice'], citation: 'jax.random.choice docs: result has `shape` (default ())', signature: ['key', 'a', 'shape', 'replace', 'p'],
    result: (a) => {
      const s = a.shape === undefined ? [] : shapeArg(a.shape);
      if (!s) return unk('shape not known');
      return array(s, isArr(a.a) ? a.a.dtype : 'int32', { random: true });
    },
  },

  // ---- convolution
  {
    names: ['jax.lax.conv_general_dilated', 'jax.lax.conv'], citation: "jax.lax.conv_general_dilated docs: default NCHW/OIHW/NCHW; 'VALID'/'SAME' or explicit pairs",
    signature: ['lhs', 'rhs', 'window_strides', 'padding', 'lhs_dilation', 'rhs_dilation', 'dimension_numbers'],
    result: (a) => {
      if (!isArr(a.lhs) || !isArr(a.rhs)) return unk('conv operands not known');
      if (a.dimension_numbers !== undefined && a.dimension_numbers !== null) return unk('conv dimension_numbers other than the default are not modelled');
      const L = a.lhs.shape;
      const R = a.rhs.shape;
      const sp = L.length - 2;
      const strides = Array.isArray(a.window_strides) ? (a.window_strides as number[]) : Array(sp).fill(1);
      const dil = Array.isArray(a.rhs_dilation) ? (a.rhs_dilation as number[]) : Array(sp).fill(1);
      const spatial: Dim[] = [];
      for (let i = 0; i < sp; i++) {
        const n = L[2 + i];
        const k = R[2 + i];
        const st = strides[i] ?? 1;
        if (a.padding === 'SAME') spatial.push(typeof n === 'number' ? Math.ceil(n / st) : n);
        else if (a.padding === 'VALID' || a.padding === undefined) spatial.push(convOutSize(n, k, st, 0, 0, dil[i] ?? 1));
        else if (Array.isArray(a.padding) && Array.isArray(a.padding[i])) {
          const [lo, hi] = a.padding[i] as number[];
          spatial.push(convOutSize(n, k, st, lo, hi, dil[i] ?? 1));
        } else return unk('conv padding not known');
      }
      return array([L[0], R[0], ...spatial], resultType([a.lhs.dtype, a.rhs.dtype]));
    },
  },
];


/**
 * The exported catalogue. Entries shared between JAX and torch names are
 * split so that `view` only reaches torch: a torch view aliases its input
 * (torch "Tensor Views" docs), while an eager jnp.transpose or reshape
 * materialises a new buffer.
 */
export const OPS: OpEntry[] = RAW.flatMap((e): OpEntry[] => {
  const torch = e.names.filter((n) => n.startsWith('torch'));
  const other = e.names.filter((n) => !n.startsWith('torch'));
  if (other.length === 0) return [e];
  const jaxEntry: OpEntry = {
    ...e, names: other,
    result: (a) => {
      const r = e.result(a);
      if (r.kind !== 'array' || !r.view) return r;
      const { view: _view, ...rest } = r;
      void _view;
      return rest;
    },
  };
  return torch.length ? [jaxEntry, { ...e, names: torch }] : [jaxEntry];
});
