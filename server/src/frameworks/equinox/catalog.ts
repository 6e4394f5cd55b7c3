/**
 * Equinox layer catalogue. Equinox modules are eager: parameters exist as
 * soon as the constructor runs, so `params` needs only the constructor
 * arguments. Shapes, fills and defaults mirror equinox/nn/_linear.py,
 * _embedding.py, _mlp.py, _conv.py, _normalisation.py, _attention.py,
 * _rnn.py, _batch_norm.py, _dropout.py (equinox v0.11.4; every shape and dtype
 * argument checked against v0.13.8 by test/catalog/signatures.test.ts). `dtype=None` means
 * `default_floating_dtype()`, which is float32 unless jax_enable_x64 is set.
 * Forward shapes are for unbatched inputs (Equinox layers are vmapped).
 */
import type { DType } from '../../../../shared/src/facts';
import type { ArrayValue, Args, CatValue, Dim, LayerEntry, ParamSpec, UnknownValue } from '../../interp/catalog-types';
import { int, isUnknown, unknown } from '../args';

const V = 'equinox v0.11.4';

/** dtype=None → float32 (equinox._misc.default_floating_dtype without x64). */
function dt(v: CatValue | undefined): DType {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'dtype' ? v.dtype : 'float32';
}
/** Linear's in/out features: an int, or the string "scalar" for no dimension. */
function feat(v: CatValue | undefined, name: string): Dim[] | UnknownValue {
  if (v === 'scalar') return [];
  if (typeof v === 'number') return [v];
  return unknown(`${name} is not known`);
}
/** Norm shapes: an int or a tuple of ints. */
function shapeOf(v: CatValue | undefined, name: string): Dim[] | UnknownValue {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return v as number[];
  return unknown(`${name} is not known`);
}
/** _ntuple(n): an int is repeated n times; a sequence must have length n. */
function ntuple(v: CatValue | undefined, n: number, name: string): number[] | UnknownValue {
  if (typeof v === 'number') return Array.from({ length: n }, () => v);
  if (Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'number')) return v as number[];
  return unknown(`${name} is not known`);
}
function p(name: string, shape: Dim[], dtype: DType, init: ParamSpec['init'], role: ParamSpec['role'] = 'param'): ParamSpec {
  return { name, shape, dtype, role, init };
}

/**
 * _linear.py Linear.__init__: weight (out, in) and bias (out,), both
 * jr.uniform in ±1/sqrt(in); "scalar" drops the dimension.
 */
function linear(inF: CatValue | undefined, outF: CatValue | undefined, bias: boolean, dtype: DType, prefix = '', inName = 'in_features', outName = 'out_features'): ParamSpec[] | UnknownValue {
  const i = feat(inF, inName); if (isUnknown(i)) return i;
  const o = feat(outF, outName); if (isUnknown(o)) return o;
  const specs = [p(`${prefix}weight`, [...o, ...i], dtype, 'random')];
  if (bias) specs.push(p(`${prefix}bias`, o, dtype, 'random'));
  return specs;
}
/** Replace the trailing feature dimension (or none, for "scalar"). */
function mapLast(x: ArrayValue, inF: CatValue | undefined, outF: CatValue | undefined, outName: string): ArrayValue | UnknownValue {
  const o = feat(outF, outName); if (isUnknown(o)) return o;
  const lead = inF === 'scalar' ? x.shape : x.shape.slice(0, -1);
  return { kind: 'array', shape: [...lead, ...o], dtype: x.dtype };
}

/** Output length of a convolution along one axis (lax.conv_general_dilated). */
function convLen(n: Dim, k: number, s: number, p0: number, p1: number, d: number): Dim {
  if (typeof n !== 'number') return n;
  return Math.floor((n + p0 + p1 - d * (k - 1) - 1) / s) + 1;
}
/** _conv.py padding: int, per-axis int, or per-axis (lo, hi) pairs. */
function padPairs(v: CatValue | undefined, n: number): [number, number][] | UnknownValue {
  if (typeof v === 'number') return Array.from({ length: n }, () => [v, v] as [number, number]);
  if (Array.isArray(v) && v.length === n) {
    const out: [number, number][] = [];
    for (const e of v) {
      if (typeof e === 'number') out.push([e, e]);
      else if (Array.isArray(e) && e.length === 2 && typeof e[0] === 'number' && typeof e[1] === 'number') out.push([e[0], e[1]]);
      else return unknown('padding is not known');
    }
    return out;
  }
  return unknown('padding is not known (string padding such as "SAME" is not modelled)');
}

function convSpatial(a: Args): number | UnknownValue { return int(a.num_spatial_dims, 'num_spatial_dims'); }

/**
 * _conv.py Conv/ConvTranspose.__init__: weight (out, in // groups, *k) and
 * bias (out, *(1,)*n), both jr.uniform in ±1/sqrt(in//groups * prod(k)).
 */
function convParams(a: Args): ParamSpec[] | UnknownValue {
  const n = convSpatial(a); if (isUnknown(n)) return n;
  const cin = int(a.in_channels, 'in_channels'); if (isUnknown(cin)) return cin;
  const cout = int(a.out_channels, 'out_channels'); if (isUnknown(cout)) return cout;
  const g = int(a.groups, 'groups'); if (isUnknown(g)) return g;
  const k = ntuple(a.kernel_size, n, 'kernel_size'); if (isUnknown(k)) return k;
  const d = dt(a.dtype);
  const specs = [p('weight', [cout, Math.floor(cin / g), ...k], d, 'random')];
  if (a.use_bias !== false) specs.push(p('bias', [cout, ...Array.from({ length: n }, () => 1)], d, 'random'));
  return specs;
}
function convOutput(a: Args, x: ArrayValue, transpose: boolean): ArrayValue | UnknownValue {
  const n = convSpatial(a); if (isUnknown(n)) return n;
  const cout = int(a.out_channels, 'out_channels'); if (isUnknown(cout)) return cout;
  const k = ntuple(a.kernel_size, n, 'kernel_size'); if (isUnknown(k)) return k;
  const s = ntuple(a.stride, n, 'stride'); if (isUnknown(s)) return s;
  const dil = ntuple(a.dilation, n, 'dilation'); if (isUnknown(dil)) return dil;
  const pad = padPairs(a.padding, n); if (isUnknown(pad)) return pad;
  if (x.shape.length !== n + 1) return unknown(`input rank ${x.shape.length} is not ${n + 1} (unbatched (channels, *spatial))`);
  const sp = x.shape.slice(1);
  let dims: Dim[];
  if (!transpose) dims = sp.map((len, i) => convLen(len, k[i], s[i], pad[i][0], pad[i][1], dil[i]));
  else {
    // ConvTranspose.__call__: (n - 1) * s - p0 - p1 + d * (k - 1) + output_padding + 1.
    const op = ntuple(a.output_padding, n, 'output_padding'); if (isUnknown(op)) return op;
    dims = sp.map((len, i) => (typeof len === 'number' ? (len - 1) * s[i] - pad[i][0] - pad[i][1] + dil[i] * (k[i] - 1) + op[i] + 1 : len));
  }
  return { kind: 'array', shape: [cout, ...dims], dtype: x.dtype };
}

const convDefaults: Args = { stride: 1, padding: 0, dilation: 1, groups: 1, use_bias: true };
const convNames = (cls: string) => [`equinox.nn.${cls}`, `equinox.nn._conv.${cls}`];

function conv(cls: string, nd: number | undefined, transpose: boolean): LayerEntry {
  const sig = transpose
    ? ['in_channels', 'out_channels', 'kernel_size', 'stride', 'output_padding', 'padding', 'dilation', 'groups', 'use_bias']
    : ['in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation', 'groups', 'use_bias'];
  // The generic Conv / ConvTranspose take num_spatial_dims first and have
  // padding before output_padding; the 1d/2d/3d subclasses fix it and put
  // output_padding before padding (equinox/nn/_conv.py ConvTranspose1d).
  const signature = nd === undefined
    ? ['num_spatial_dims', ...(transpose ? ['in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'output_padding', 'dilation', 'groups', 'use_bias'] : sig)]
    : sig;
  const fix = (a: Args): Args => (nd === undefined ? a : { ...a, num_spatial_dims: nd });
  return {
    names: convNames(cls), framework: 'equinox',
    citation: `equinox/nn/_conv.py (${V}) ${cls}.__init__: weight (out, in//groups, *k), bias (out, *(1,)*n), uniform ±1/sqrt(fan_in)`,
    signature, defaults: transpose ? { ...convDefaults, output_padding: 0 } : convDefaults,
    params: (a: Args) => convParams(fix(a)),
    output: (a: Args, x) => convOutput(fix(a), x, transpose),
  };
}

function norm(a: Args, weightDefault: boolean, biasDefault: boolean): ParamSpec[] | UnknownValue {
  let useW = a.use_weight === undefined ? weightDefault : a.use_weight !== false;
  let useB = a.use_bias === undefined ? biasDefault : a.use_bias !== false;
  // LayerNorm(elementwise_affine=...) is the deprecated spelling: when given it sets both
  // (_normalisation.py LayerNorm.__init__: `if elementwise_affine is not None: use_weight = use_bias = elementwise_affine`).
  if (typeof a.elementwise_affine === 'boolean') useW = useB = a.elementwise_affine;
  else if (a.elementwise_affine !== undefined && a.elementwise_affine !== null) return unknown('elementwise_affine is not known');
  if (!useW && !useB) return [];
  const s = shapeOf(a.shape, 'shape'); if (isUnknown(s)) return s;
  const out: ParamSpec[] = [];
  if (useW) out.push(p('weight', s, dt(a.dtype), 'ones'));
  if (useB) out.push(p('bias', s, dt(a.dtype), 'zeros'));
  return out;
}

const same = (_a: Args, x: ArrayValue): ArrayValue => x;

export const EQUINOX_LAYERS: LayerEntry[] = [
  {
    names: ['equinox.nn.Linear', 'equinox.nn._linear.Linear'], framework: 'equinox',
    citation: `equinox/nn/_linear.py (${V}) Linear.__init__: weight (out, in), bias (out,), uniform ±1/sqrt(in)`,
    signature: ['in_features', 'out_features', 'use_bias', 'dtype'], defaults: { use_bias: true, dtype: null },
    params: (a: Args) => linear(a.in_features, a.out_features, a.use_bias !== false, dt(a.dtype)),
    output: (a: Args, x) => mapLast(x, a.in_features, a.out_features, 'out_features'),
  },
  {
    // _embedding.py Embedding.__init__: weight = jr.normal(key, (num, size)),
    // unless `weight` is passed, in which case that array is used as is.
    names: ['equinox.nn.Embedding', 'equinox.nn._embedding.Embedding'], framework: 'equinox',
    citation: `equinox/nn/_embedding.py (${V}) Embedding.__init__: weight jr.normal (num_embeddings, embedding_size)`,
    signature: ['num_embeddings', 'embedding_size', 'weight', 'dtype'], defaults: { weight: null, dtype: null },
    params: (a: Args) => {
      const w = a.weight;
      if (typeof w === 'object' && w !== null && !Array.isArray(w) && w.kind === 'array') return [p('weight', w.shape, w.dtype, 'constant')];
      const n = int(a.num_embeddings, 'num_embeddings'); if (isUnknown(n)) return n;
      const e = int(a.embedding_size, 'embedding_size'); if (isUnknown(e)) return e;
      return [p('weight', [n, e], dt(a.dtype), 'random')];
    },
    // Embedding.__call__ takes a scalar index and returns weight[x].
    output: (a: Args, x) => {
      const e = int(a.embedding_size, 'embedding_size'); if (isUnknown(e)) return e;
      return { kind: 'array', shape: [...x.shape, e], dtype: dt(a.dtype) };
    },
  },
  {
    // _mlp.py MLP.__init__: depth == 0 → one Linear(in, out, use_final_bias);
    // otherwise Linear(in, width, use_bias), depth-1 × Linear(width, width,
    // use_bias), Linear(width, out, use_final_bias): depth+1 layers.
    names: ['equinox.nn.MLP', 'equinox.nn._mlp.MLP'], framework: 'equinox',
    citation: `equinox/nn/_mlp.py (${V}) MLP.__init__: depth hidden layers, depth+1 Linear layers`,
    signature: ['in_size', 'out_size', 'width_size', 'depth', 'activation', 'final_activation', 'use_bias', 'use_final_bias', 'dtype'],
    defaults: { use_bias: true, use_final_bias: true, dtype: null },
    params: (a: Args) => {
      const depth = int(a.depth, 'depth'); if (isUnknown(depth)) return depth;
      if (depth > 0 && typeof a.width_size !== 'number') return unknown('width_size is not known');
      const d = dt(a.dtype);
      const sizes: [CatValue | undefined, CatValue | undefined][] = depth === 0
        ? [[a.in_size, a.out_size]]
        : [[a.in_size, a.width_size], ...Array.from({ length: depth - 1 }, (): [CatValue, CatValue] => [a.width_size ?? null, a.width_size ?? null]), [a.width_size, a.out_size]];
      const out: ParamSpec[] = [];
      for (let i = 0; i < sizes.length; i++) {
        const last = i === sizes.length - 1;
        const l = linear(sizes[i][0], sizes[i][1], last ? a.use_final_bias !== false : a.use_bias !== false, d, `layers.${i}.`, 'in_size', 'out_size');
        if (isUnknown(l)) return l;
        out.push(...l);
      }
      return out;
    },
    output: (a: Args, x) => mapLast(x, a.in_size, a.out_size, 'out_size'),
  },
  conv('Conv', undefined, false), conv('Conv1d', 1, false), conv('Conv2d', 2, false), conv('Conv3d', 3, false),
  conv('ConvTranspose', undefined, true), conv('ConvTranspose1d', 1, true), conv('ConvTranspose2d', 2, true), conv('ConvTranspose3d', 3, true),
  {
    names: ['equinox.nn.LayerNorm', 'equinox.nn._normalisation.LayerNorm'], framework: 'equinox',
    citation: `equinox/nn/_normalisation.py (${V}) LayerNorm.__init__: weight ones(shape), bias zeros(shape); use_weight=True, use_bias=True`,
    signature: ['shape', 'eps', 'use_weight', 'use_bias', 'dtype'], defaults: { eps: 1e-5, use_weight: true, use_bias: true, dtype: null },
    params: (a: Args) => norm(a, true, true), output: same,
  },
  {
    names: ['equinox.nn.RMSNorm', 'equinox.nn._normalisation.RMSNorm'], framework: 'equinox',
    citation: `equinox/nn/_normalisation.py (${V}) RMSNorm.__init__: weight ones(shape), bias zeros(shape); use_weight=True, use_bias=True`,
    // RMSNorm in v0.11.4 defaults use_bias=True as well (both affine terms).
    signature: ['shape', 'eps', 'use_weight', 'use_bias', 'dtype'], defaults: { eps: 1e-5, use_weight: true, use_bias: true, dtype: null },
    params: (a: Args) => norm(a, true, true), output: same,
  },
  {
    // GroupNorm.__init__: channelwise_affine → weight ones(channels), bias zeros(channels).
    names: ['equinox.nn.GroupNorm', 'equinox.nn._normalisation.GroupNorm'], framework: 'equinox',
    citation: `equinox/nn/_normalisation.py (${V}) GroupNorm.__init__: weight ones(channels), bias zeros(channels) when channelwise_affine`,
    signature: ['groups', 'channels', 'eps', 'channelwise_affine', 'dtype'], defaults: { channels: null, eps: 1e-5, channelwise_affine: true, dtype: null },
    params: (a: Args) => {
      if (a.channelwise_affine === false) return [];
      const c = int(a.channels, 'channels'); if (isUnknown(c)) return c;
      return [p('weight', [c], dt(a.dtype), 'ones'), p('bias', [c], dt(a.dtype), 'zeros')];
    },
    output: same,
  },
  {
    // _batch_norm.py BatchNorm.__init__: weight ones / bias zeros (input_size,)
    // when channelwise_affine; running mean and variance live in eqx State
    // (two (input_size,) arrays created with jnp.empty) plus a bool flag.
    names: ['equinox.nn.BatchNorm', 'equinox.nn._batch_norm.BatchNorm'], framework: 'equinox',
    citation: `equinox/nn/_batch_norm.py (${V}) BatchNorm.__init__: weight/bias (input_size,), state (mean, var) (input_size,) each`,
    signature: ['input_size', 'axis_name', 'eps', 'channelwise_affine', 'momentum', 'inference', 'dtype'],
    defaults: { eps: 1e-5, channelwise_affine: true, momentum: 0.99, inference: false, dtype: null },
    params: (a: Args) => {
      const c = int(a.input_size, 'input_size'); if (isUnknown(c)) return c;
      const d = dt(a.dtype);
      const out: ParamSpec[] = [];
      if (a.channelwise_affine !== false) out.push(p('weight', [c], d, 'ones'), p('bias', [c], d, 'zeros'));
      out.push(p('state.mean', [c], d, 'empty', 'buffer'), p('state.var', [c], d, 'empty', 'buffer'));
      return out;
    },
    output: same,
  },
  {
    // _attention.py MultiheadAttention.__init__: key/value sizes default to
    // query_size, qk/vo sizes to query_size // num_heads, output to query_size;
    // four Linear projections, biases off unless asked for, all four built
    // with the layer's `dtype` (v0.13.8 `dtype=None` → default_floating_dtype()).
    names: ['equinox.nn.MultiheadAttention', 'equinox.nn._attention.MultiheadAttention'], framework: 'equinox',
    citation: `equinox/nn/_attention.py (${V}; dtype: v0.13.8) MultiheadAttention.__init__: query/key/value/output_proj Linear(dtype=dtype), biases default False`,
    signature: ['num_heads', 'query_size', 'key_size', 'value_size', 'output_size', 'qk_size', 'vo_size', 'use_query_bias', 'use_key_bias', 'use_value_bias', 'use_output_bias', 'dropout_p', 'inference', 'dtype'],
    defaults: { key_size: null, value_size: null, output_size: null, qk_size: null, vo_size: null, use_query_bias: false, use_key_bias: false, use_value_bias: false, use_output_bias: false, dropout_p: 0, inference: false, dtype: null },
    params: (a: Args) => {
      const h = int(a.num_heads, 'num_heads'); if (isUnknown(h)) return h;
      const q = int(a.query_size, 'query_size'); if (isUnknown(q)) return q;
      const opt = (v: CatValue | undefined, dflt: number, name: string): number | UnknownValue => (v === null || v === undefined ? dflt : int(v, name));
      const k = opt(a.key_size, q, 'key_size'); if (isUnknown(k)) return k;
      const v = opt(a.value_size, q, 'value_size'); if (isUnknown(v)) return v;
      const o = opt(a.output_size, q, 'output_size'); if (isUnknown(o)) return o;
      const qk = opt(a.qk_size, Math.floor(q / h), 'qk_size'); if (isUnknown(qk)) return qk;
      const vo = opt(a.vo_size, Math.floor(q / h), 'vo_size'); if (isUnknown(vo)) return vo;
      const out: ParamSpec[] = [];
      const add = (l: ParamSpec[] | UnknownValue) => { if (!isUnknown(l)) out.push(...l); };
      const d = dt(a.dtype);
      add(linear(q, h * qk, a.use_query_bias === true, d, 'query_proj.'));
      add(linear(k, h * qk, a.use_key_bias === true, d, 'key_proj.'));
      add(linear(v, h * vo, a.use_value_bias === true, d, 'value_proj.'));
      add(linear(h * vo, o, a.use_output_bias === true, d, 'output_proj.'));
      return out;
    },
    output: (a: Args, x) => {
      const q = int(a.query_size, 'query_size'); if (isUnknown(q)) return q;
      const o = a.output_size === null || a.output_size === undefined ? q : int(a.output_size, 'output_size'); if (isUnknown(o)) return o;
      return { kind: 'array', shape: [...x.shape.slice(0, -1), o], dtype: x.dtype };
    },
  },
  {
    // _rnn.py GRUCell.__init__: weight_ih (3h, in), weight_hh (3h, h), and
    // with use_bias bias (3h,) and bias_n (h,), all uniform ±1/sqrt(h).
    names: ['equinox.nn.GRUCell', 'equinox.nn._rnn.GRUCell'], framework: 'equinox',
    citation: `equinox/nn/_rnn.py (${V}) GRUCell.__init__: weight_ih (3h, in), weight_hh (3h, h), bias (3h,), bias_n (h,)`,
    signature: ['input_size', 'hidden_size', 'use_bias', 'dtype'], defaults: { use_bias: true, dtype: null },
    params: (a: Args) => {
      const i = int(a.input_size, 'input_size'); if (isUnknown(i)) return i;
      const h = int(a.hidden_size, 'hidden_size'); if (isUnknown(h)) return h;
      const d = dt(a.dtype);
      const out = [p('weight_ih', [3 * h, i], d, 'random'), p('weight_hh', [3 * h, h], d, 'random')];
      if (a.use_bias !== false) out.push(p('bias', [3 * h], d, 'random'), p('bias_n', [h], d, 'random'));
      return out;
    },
    output: (a: Args, x) => (typeof a.hidden_size === 'number' ? { kind: 'array', shape: [a.hidden_size], dtype: x.dtype } : unknown('hidden_size is not known')),
  },
  {
    // _rnn.py LSTMCell.__init__: weight_ih (4h, in), weight_hh (4h, h), bias (4h,).
    names: ['equinox.nn.LSTMCell', 'equinox.nn._rnn.LSTMCell'], framework: 'equinox',
    citation: `equinox/nn/_rnn.py (${V}) LSTMCell.__init__: weight_ih (4h, in), weight_hh (4h, h), bias (4h,)`,
    signature: ['input_size', 'hidden_size', 'use_bias', 'dtype'], defaults: { use_bias: true, dtype: null },
    params: (a: Args) => {
      const i = int(a.input_size, 'input_size'); if (isUnknown(i)) return i;
      const h = int(a.hidden_size, 'hidden_size'); if (isUnknown(h)) return h;
      const d = dt(a.dtype);
      const out = [p('weight_ih', [4 * h, i], d, 'random'), p('weight_hh', [4 * h, h], d, 'random')];
      if (a.use_bias !== false) out.push(p('bias', [4 * h], d, 'random'));
      return out;
    },
  },
  {
    names: ['equinox.nn.Dropout', 'equinox.nn._dropout.Dropout'], framework: 'equinox',
    citation: `equinox/nn/_dropout.py (${V}) Dropout: no parameters`,
    signature: ['p', 'inference'], defaults: { p: 0.5, inference: false }, params: () => [], output: same,
  },
  {
    names: ['equinox.nn.Identity', 'equinox.nn._misc.Identity', 'equinox.nn._linear.Identity'], framework: 'equinox',
    citation: `equinox/nn/_linear.py (${V}) Identity: no parameters`,
    signature: [], defaults: {}, params: () => [], output: same,
  },
  {
    // _activations.py PReLU.__init__: negative_slope = jnp.asarray(init_alpha): a 0-d array for a
    // float (default 0.25), else the given array's shape.
    names: ['equinox.nn.PReLU', 'equinox.nn._activations.PReLU'], framework: 'equinox',
    citation: `equinox/nn/_activations.py (${V}) PReLU.__init__: negative_slope = jnp.asarray(init_alpha)`,
    signature: ['init_alpha'], defaults: { init_alpha: 0.25 },
    params: (a: Args) => {
      const v = a.init_alpha;
      if (typeof v === 'number') return [p('negative_slope', [], 'float32', 'constant')];
      if (typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'array') return [p('negative_slope', v.shape, v.dtype, 'constant')];
      return unknown('init_alpha is not known');
    },
    output: same,
  },
  // _pool.py: pooling layers hold only static configuration (no arrays).
  ...['MaxPool1d', 'MaxPool2d', 'MaxPool3d', 'AvgPool1d', 'AvgPool2d', 'AvgPool3d', 'AdaptiveMaxPool1d', 'AdaptiveMaxPool2d',
    'AdaptiveMaxPool3d', 'AdaptiveAvgPool1d', 'AdaptiveAvgPool2d', 'AdaptiveAvgPool3d'].map((cls): LayerEntry => ({
    names: [`equinox.nn.${cls}`, `equinox.nn._pool.${cls}`], framework: 'equinox',
    citation: `equinox/nn/_pool.py (${V}) ${cls}: no parameters`,
    signature: cls.startsWith('Adaptive') ? ['target_size', 'operation'] : ['kernel_size', 'stride', 'padding', 'use_ceil'],
    defaults: {}, params: () => [],
  })),
  {
    // Lambda wraps an arbitrary function: no parameters, output unknown.
    names: ['equinox.nn.Lambda', 'equinox.nn._sequential.Lambda'], framework: 'equinox',
    citation: `equinox/nn/_sequential.py (${V}) Lambda: wraps a function, no parameters`,
    signature: ['fn'], defaults: {}, params: () => [],
  },
];
