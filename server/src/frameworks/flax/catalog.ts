/**
 * Flax linen layer catalogue. Linen modules are lazy: parameters are created
 * by `self.param` at the first call (inside `init`), sized from the input, so
 * `params` receives the first positional input array and returns unknown
 * without it. Shapes, fills and defaults mirror flax/linen/linear.py,
 * normalization.py, attention.py, stochastic.py (flax v0.8.5). Parameters
 * are created in `param_dtype`, float32 by default, whatever the input dtype.
 */
import type { DType } from '../../../../shared/src/facts';
import type { ArrayValue, Args, CatValue, Dim, LayerEntry, ParamSpec, UnknownValue } from '../../interp/catalog-types';
import { int, ints, isUnknown, unknown } from '../args';
import { initFill, initPartition } from '../initializers';

const V = 'flax v0.8.5';

/** param_dtype: float32 unless a dtype object is given (linear.py Dense.param_dtype). */
function pdt(v: CatValue | undefined): DType {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'dtype' ? v.dtype : 'float32';
}
/** Output dtype: `dtype`, or (None) the promotion of input and params, approximated by the input's. */
function odt(a: Args, x: ArrayValue): DType {
  return typeof a.dtype === 'object' && a.dtype !== null && !Array.isArray(a.dtype) && a.dtype.kind === 'dtype' ? a.dtype.dtype : x.dtype;
}
function needInput(x: ArrayValue | undefined, cls: string): ArrayValue | UnknownValue {
  return x ?? unknown(`${cls} creates its parameters at the first call and needs its input to size them`);
}
function axisIndex(ax: number, rank: number): number { return ax < 0 ? rank + ax : ax; }
function spec(name: string, shape: Dim[], dtype: DType, init: ParamSpec['init'], partition?: (string | null)[], role: ParamSpec['role'] = 'param'): ParamSpec {
  const s: ParamSpec = { name, shape, dtype, role, init };
  if (partition) s.partition = partition;
  return s;
}
function last(x: ArrayValue): Dim { return x.shape[x.shape.length - 1]; }

/** Dense.__call__: kernel (in, features) lecun_normal, bias (features,) zeros. */
function denseParams(a: Args, x: ArrayValue, inDims: Dim[], features: number[], prefix = '', biasShape?: Dim[]): ParamSpec[] {
  const d = pdt(a.param_dtype);
  const specs = [spec(`${prefix}kernel`, [...inDims, ...features], d, initFill(a.kernel_init, 'random'), initPartition(a.kernel_init))];
  if (a.use_bias !== false) specs.push(spec(`${prefix}bias`, biasShape ?? features, d, initFill(a.bias_init, 'zeros'), initPartition(a.bias_init)));
  return specs;
}

/** Convolution output length for flax padding 'SAME' / 'VALID' / ints / pairs. */
function convDims(sp: Dim[], k: number[], s: number[], dil: number[], padding: CatValue | undefined): Dim[] | UnknownValue {
  const n = k.length;
  return sp.map((len, i) => {
    if (typeof len !== 'number') return len;
    const ek = dil[i] * (k[i] - 1) + 1;
    // A padding string reaches lax.conv_general_dilated, whose padtype_to_pads upper-cases it ('same' = 'SAME',
    // SAME_LOWER has SAME's shape). CIRCULAR / REFLECT pad ((ek - 1) // 2, ek // 2) and CAUSAL (1-D) pads (ek - 1, 0)
    // before a VALID conv (linear.py _Conv.__call__): floor((len + ek - 1 - ek) / s) + 1 = ceil(len / s), SAME's shape.
    const named = typeof padding === 'string' ? padding.toUpperCase() : padding;
    if (named === 'SAME' || named === 'SAME_LOWER' || padding === undefined) return Math.ceil(len / s[i]);
    if (padding === 'CIRCULAR' || padding === 'REFLECT' || (padding === 'CAUSAL' && n === 1)) return Math.ceil(len / s[i]);
    if (named === 'VALID') return Math.floor((len - ek) / s[i]) + 1;
    let lo: number | undefined, hi: number | undefined;
    if (typeof padding === 'number') { lo = padding; hi = padding; }
    else if (Array.isArray(padding) && padding.length === n) {
      const e = padding[i];
      if (typeof e === 'number') { lo = e; hi = e; }
      else if (Array.isArray(e) && typeof e[0] === 'number' && typeof e[1] === 'number') { lo = e[0]; hi = e[1]; }
    }
    if (lo === undefined || hi === undefined) return { unknown: 'padding is not modelled' };
    return Math.floor((len + lo + hi - ek) / s[i]) + 1;
  });
}
function tupleN(v: CatValue | undefined, n: number, dflt: number, name: string): number[] | UnknownValue {
  if (v === undefined || v === null) return Array.from({ length: n }, () => dflt);
  if (typeof v === 'number') return Array.from({ length: n }, () => v);
  if (Array.isArray(v) && v.length === n && v.every((e) => typeof e === 'number')) return v as number[];
  return unknown(`${name} is not known`);
}

function conv(cls: 'Conv' | 'ConvTranspose'): LayerEntry {
  const transpose = cls === 'ConvTranspose';
  return {
    names: [`flax.linen.${cls}`, `flax.linen.linear.${cls}`],
    framework: 'flax',
    citation: transpose
      ? `flax/linen/linear.py (${V}) ConvTranspose.__call__: kernel (*kernel_size, in, features), bias (features,)`
      : `flax/linen/linear.py (${V}) Conv.__call__: kernel (*kernel_size, in // feature_group_count, features), bias (features,)`,
    signature: transpose
      ? ['features', 'kernel_size', 'strides', 'padding', 'kernel_dilation', 'use_bias', 'mask', 'dtype', 'param_dtype', 'precision', 'kernel_init', 'bias_init', 'transpose_kernel']
      : ['features', 'kernel_size', 'strides', 'padding', 'input_dilation', 'kernel_dilation', 'feature_group_count', 'use_bias', 'mask', 'dtype', 'param_dtype', 'precision', 'kernel_init', 'bias_init'],
    defaults: { strides: 1, padding: 'SAME', use_bias: true, feature_group_count: 1 },
    params: (a: Args, input) => {
      const x = needInput(input, cls); if (isUnknown(x)) return x;
      const f = int(a.features, 'features'); if (isUnknown(f)) return f;
      const k = ints(a.kernel_size, 'kernel_size'); if (isUnknown(k)) return k;
      const g = transpose ? 1 : int(a.feature_group_count ?? 1, 'feature_group_count'); if (isUnknown(g)) return g;
      const cin = last(x);
      const inF: Dim = typeof cin === 'number' ? Math.floor(cin / g) : cin;
      // ConvTranspose with transpose_kernel=True swaps the last two axes.
      const kshape: Dim[] = transpose && a.transpose_kernel === true ? [...k, f, inF] : [...k, inF, f];
      const d = pdt(a.param_dtype);
      const specs = [spec('kernel', kshape, d, initFill(a.kernel_init, 'random'), initPartition(a.kernel_init))];
      if (a.use_bias !== false) specs.push(spec('bias', [f], d, initFill(a.bias_init, 'zeros'), initPartition(a.bias_init)));
      return specs;
    },
    output: (a: Args, x) => {
      const f = int(a.features, 'features'); if (isUnknown(f)) return f;
      const k = ints(a.kernel_size, 'kernel_size'); if (isUnknown(k)) return k;
      const n = k.length;
      if (x.shape.length < n + 1) return unknown(`input rank ${x.shape.length} is below ${n + 1}`);
      const s = tupleN(a.strides, n, 1, 'strides'); if (isUnknown(s)) return s;
      const dil = tupleN(a.kernel_dilation, n, 1, 'kernel_dilation'); if (isUnknown(dil)) return dil;
      const sp = x.shape.slice(x.shape.length - 1 - n, -1);
      let dims: Dim[] | UnknownValue;
      if (!transpose) dims = convDims(sp, k, s, dil, a.padding);
      else if (a.padding === 'SAME' || a.padding === undefined) dims = sp.map((len, i) => (typeof len === 'number' ? len * s[i] : len));
      else if (a.padding === 'VALID') dims = sp.map((len, i) => (typeof len === 'number' ? len * s[i] + Math.max(dil[i] * (k[i] - 1) + 1 - s[i], 0) : len));
      else dims = unknown('ConvTranspose padding other than SAME/VALID is not modelled');
      if (isUnknown(dims)) return dims;
      return { kind: 'array', shape: [...x.shape.slice(0, x.shape.length - 1 - n), ...dims, f], dtype: odt(a, x) };
    },
  };
}

/** Normalisation parameters over the feature axes (normalization.py _normalize). */
function featureShape(x: ArrayValue, axes: CatValue | undefined): Dim[] | UnknownValue {
  const ax = axes === undefined || axes === null ? [-1] : ints(axes, 'feature_axes');
  if (isUnknown(ax)) return ax;
  return ax.map((i) => x.shape[axisIndex(i, x.shape.length)]).filter((d): d is Dim => d !== undefined);
}

function attention(name: string): LayerEntry {
  return {
    names: [`flax.linen.${name}`, `flax.linen.attention.${name}`],
    framework: 'flax',
    citation: `flax/linen/attention.py (${V}) MultiHeadDotProductAttention.__call__: query/key/value DenseGeneral kernel (in, heads, head_dim), out DenseGeneral kernel (heads, head_dim, out)`,
    signature: ['num_heads', 'dtype', 'param_dtype', 'qkv_features', 'out_features', 'broadcast_dropout', 'dropout_rate', 'deterministic', 'precision', 'kernel_init', 'out_kernel_init', 'bias_init', 'out_bias_init', 'use_bias'],
    defaults: { qkv_features: null, out_features: null, use_bias: true, dropout_rate: 0 },
    params: (a: Args, input) => {
      const x = needInput(input, name); if (isUnknown(x)) return x;
      const h = int(a.num_heads, 'num_heads'); if (isUnknown(h)) return h;
      const inF = last(x);
      // qkv_features and out_features default to inputs_q.shape[-1]; key and
      // value projections read inputs_k / inputs_v, which default to inputs_q
      // (the self-attention case modelled here).
      const qkv = a.qkv_features === null || a.qkv_features === undefined ? inF : int(a.qkv_features, 'qkv_features');
      if (isUnknown(qkv)) return qkv;
      const out = a.out_features === null || a.out_features === undefined ? inF : int(a.out_features, 'out_features');
      if (isUnknown(out)) return out;
      if (typeof qkv !== 'number') return unknown('qkv_features is not known (input last dimension unknown)');
      if (typeof out !== 'number') return unknown('out_features is not known (input last dimension unknown)');
      const hd = Math.floor(qkv / h);
      const specs: ParamSpec[] = [];
      for (const p of ['query', 'key', 'value']) specs.push(...denseParams(a, x, [inF], [h, hd], `${p}.`));
      const outArgs: Args = { ...a, kernel_init: a.out_kernel_init ?? a.kernel_init, bias_init: a.out_bias_init ?? a.bias_init };
      specs.push(...denseParams(outArgs, x, [h, hd], [out], 'out.'));
      return specs;
    },
    output: (a: Args, x) => {
      const o = a.out_features === null || a.out_features === undefined ? last(x) : int(a.out_features, 'out_features');
      if (isUnknown(o)) return o;
      return { kind: 'array', shape: [...x.shape.slice(0, -1), o], dtype: odt(a, x) };
    },
  };
}

export const FLAX_LAYERS: LayerEntry[] = [
  {
    names: ['flax.linen.Dense', 'flax.linen.linear.Dense'], framework: 'flax',
    citation: `flax/linen/linear.py (${V}) Dense.__call__: kernel (in, features) lecun_normal, bias (features,) zeros, param_dtype float32`,
    signature: ['features', 'use_bias', 'dtype', 'param_dtype', 'precision', 'kernel_init', 'bias_init'], defaults: { use_bias: true },
    params: (a: Args, input) => {
      const x = needInput(input, 'Dense'); if (isUnknown(x)) return x;
      const f = int(a.features, 'features'); if (isUnknown(f)) return f;
      return denseParams(a, x, [last(x)], [f]);
    },
    output: (a: Args, x) => {
      const f = int(a.features, 'features'); if (isUnknown(f)) return f;
      return { kind: 'array', shape: [...x.shape.slice(0, -1), f], dtype: odt(a, x) };
    },
  },
  {
    // DenseGeneral.__call__: kernel batch_shape + in_shape(axis) + features,
    // bias batch_shape + features.
    names: ['flax.linen.DenseGeneral', 'flax.linen.linear.DenseGeneral'], framework: 'flax',
    citation: `flax/linen/linear.py (${V}) DenseGeneral.__call__: kernel (*batch, *in[axis], *features), bias (*batch, *features)`,
    signature: ['features', 'axis', 'batch_dims', 'use_bias', 'dtype', 'param_dtype', 'kernel_init', 'bias_init', 'precision'],
    defaults: { axis: -1, batch_dims: [], use_bias: true },
    params: (a: Args, input) => {
      const x = needInput(input, 'DenseGeneral'); if (isUnknown(x)) return x;
      const f = ints(a.features, 'features'); if (isUnknown(f)) return f;
      const ax = ints(a.axis ?? -1, 'axis'); if (isUnknown(ax)) return ax;
      const bd = ints(a.batch_dims ?? [], 'batch_dims'); if (isUnknown(bd)) return bd;
      const r = x.shape.length;
      const batch = bd.map((i) => x.shape[axisIndex(i, r)]);
      const inDims = ax.map((i) => x.shape[axisIndex(i, r)]);
      const d = pdt(a.param_dtype);
      const specs = [spec('kernel', [...batch, ...inDims, ...f], d, initFill(a.kernel_init, 'random'), initPartition(a.kernel_init))];
      if (a.use_bias !== false) specs.push(spec('bias', [...batch, ...f], d, initFill(a.bias_init, 'zeros'), initPartition(a.bias_init)));
      return specs;
    },
    output: (a: Args, x) => {
      const f = ints(a.features, 'features'); if (isUnknown(f)) return f;
      const ax = ints(a.axis ?? -1, 'axis'); if (isUnknown(ax)) return ax;
      const r = x.shape.length;
      const contracted = new Set(ax.map((i) => axisIndex(i, r)));
      return { kind: 'array', shape: [...x.shape.filter((_d, i) => !contracted.has(i)), ...f], dtype: odt(a, x) };
    },
  },
  {
    // Embed.setup: embedding (num_embeddings, features) with
    // variance_scaling(1.0, 'fan_in', 'normal', out_axis=0), param_dtype float32.
    // Embed is created in setup, so its size does not depend on the input.
    names: ['flax.linen.Embed', 'flax.linen.linear.Embed'], framework: 'flax',
    citation: `flax/linen/linear.py (${V}) Embed.setup: embedding (num_embeddings, features), variance_scaling normal`,
    signature: ['num_embeddings', 'features', 'dtype', 'param_dtype', 'embedding_init'], defaults: {},
    params: (a: Args) => {
      const n = int(a.num_embeddings, 'num_embeddings'); if (isUnknown(n)) return n;
      const f = int(a.features, 'features'); if (isUnknown(f)) return f;
      return [spec('embedding', [n, f], pdt(a.param_dtype), initFill(a.embedding_init, 'random'), initPartition(a.embedding_init))];
    },
    output: (a: Args, x) => {
      const f = int(a.features, 'features'); if (isUnknown(f)) return f;
      const d: DType = typeof a.dtype === 'object' && a.dtype !== null && !Array.isArray(a.dtype) && a.dtype.kind === 'dtype' ? a.dtype.dtype : pdt(a.param_dtype);
      return { kind: 'array', shape: [...x.shape, f], dtype: d };
    },
  },
  conv('Conv'), conv('ConvTranspose'),
  {
    names: ['flax.linen.LayerNorm', 'flax.linen.normalization.LayerNorm'], framework: 'flax',
    citation: `flax/linen/normalization.py (${V}) LayerNorm: scale ones, bias zeros over feature_axes (default -1)`,
    signature: ['epsilon', 'dtype', 'param_dtype', 'use_bias', 'use_scale', 'bias_init', 'scale_init', 'reduction_axes', 'feature_axes'],
    defaults: { use_bias: true, use_scale: true, feature_axes: -1 },
    params: (a: Args, input) => {
      const x = needInput(input, 'LayerNorm'); if (isUnknown(x)) return x;
      const s = featureShape(x, a.feature_axes); if (isUnknown(s)) return s;
      const d = pdt(a.param_dtype);
      const out: ParamSpec[] = [];
      if (a.use_scale !== false) out.push(spec('scale', s, d, initFill(a.scale_init, 'ones'), initPartition(a.scale_init)));
      if (a.use_bias !== false) out.push(spec('bias', s, d, initFill(a.bias_init, 'zeros'), initPartition(a.bias_init)));
      return out;
    },
    output: (a: Args, x) => ({ kind: 'array', shape: x.shape, dtype: odt(a, x) }),
  },
  {
    names: ['flax.linen.RMSNorm', 'flax.linen.normalization.RMSNorm'], framework: 'flax',
    citation: `flax/linen/normalization.py (${V}) RMSNorm: scale ones over feature_axes (default -1), no bias`,
    signature: ['epsilon', 'dtype', 'param_dtype', 'use_scale', 'scale_init', 'reduction_axes', 'feature_axes'],
    defaults: { use_scale: true, feature_axes: -1 },
    params: (a: Args, input) => {
      const x = needInput(input, 'RMSNorm'); if (isUnknown(x)) return x;
      const s = featureShape(x, a.feature_axes); if (isUnknown(s)) return s;
      return a.use_scale === false ? [] : [spec('scale', s, pdt(a.param_dtype), initFill(a.scale_init, 'ones'), initPartition(a.scale_init))];
    },
    output: (a: Args, x) => ({ kind: 'array', shape: x.shape, dtype: odt(a, x) }),
  },
  {
    // GroupNorm.__call__: scale / bias (channels,) where channels = x.shape[-1].
    names: ['flax.linen.GroupNorm', 'flax.linen.normalization.GroupNorm'], framework: 'flax',
    citation: `flax/linen/normalization.py (${V}) GroupNorm: scale ones, bias zeros (channels,) = input last dim`,
    signature: ['num_groups', 'group_size', 'epsilon', 'dtype', 'param_dtype', 'use_bias', 'use_scale', 'bias_init', 'scale_init'],
    defaults: { num_groups: 32, use_bias: true, use_scale: true },
    params: (a: Args, input) => {
      const x = needInput(input, 'GroupNorm'); if (isUnknown(x)) return x;
      const c = last(x); const d = pdt(a.param_dtype);
      const out: ParamSpec[] = [];
      if (a.use_scale !== false) out.push(spec('scale', [c], d, initFill(a.scale_init, 'ones'), initPartition(a.scale_init)));
      if (a.use_bias !== false) out.push(spec('bias', [c], d, initFill(a.bias_init, 'zeros'), initPartition(a.bias_init)));
      return out;
    },
    output: (a: Args, x) => ({ kind: 'array', shape: x.shape, dtype: odt(a, x) }),
  },
  {
    // BatchNorm.__call__: batch_stats mean zeros / var ones (features,) in
    // float32 (self.variable('batch_stats', ...) with jnp.zeros / jnp.ones,
    // no param_dtype), params scale ones / bias zeros in param_dtype.
    names: ['flax.linen.BatchNorm', 'flax.linen.normalization.BatchNorm'], framework: 'flax',
    citation: `flax/linen/normalization.py (${V}) BatchNorm: params scale/bias, batch_stats mean/var, shape = input at axis (-1)`,
    signature: ['use_running_average', 'axis', 'momentum', 'epsilon', 'dtype', 'param_dtype', 'use_bias', 'use_scale', 'bias_init', 'scale_init'],
    defaults: { axis: -1, momentum: 0.99, use_bias: true, use_scale: true },
    params: (a: Args, input) => {
      const x = needInput(input, 'BatchNorm'); if (isUnknown(x)) return x;
      const s = featureShape(x, a.axis); if (isUnknown(s)) return s;
      const d = pdt(a.param_dtype);
      const out: ParamSpec[] = [
        spec('batch_stats.mean', s, 'float32', 'zeros', undefined, 'buffer'),
        spec('batch_stats.var', s, 'float32', 'ones', undefined, 'buffer'),
      ];
      if (a.use_scale !== false) out.push(spec('scale', s, d, initFill(a.scale_init, 'ones'), initPartition(a.scale_init)));
      if (a.use_bias !== false) out.push(spec('bias', s, d, initFill(a.bias_init, 'zeros'), initPartition(a.bias_init)));
      return out;
    },
    output: (a: Args, x) => ({ kind: 'array', shape: x.shape, dtype: odt(a, x) }),
  },
  attention('MultiHeadDotProductAttention'),
  attention('MultiHeadAttention'),
  attention('SelfAttention'),
  {
    names: ['flax.linen.Dropout', 'flax.linen.stochastic.Dropout'], framework: 'flax',
    citation: `flax/linen/stochastic.py (${V}) Dropout: no parameters`,
    signature: ['rate', 'broadcast_dims', 'deterministic', 'rng_collection'], defaults: {},
    params: () => [], output: (_a: Args, x) => x,
  },
];
