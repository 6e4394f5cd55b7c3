/**
 * Flax NNX layer catalogue. NNX modules are eager, like Equinox: every
 * `nnx.Param` exists once the constructor returns, sized from the
 * constructor's feature arguments (no input needed). Parameters are created
 * in `param_dtype` (float32 by default); `dtype` is only the computation
 * dtype. Layers are channels-last like linen, so forward shapes reuse the
 * linen entries. Shapes, fills and defaults mirror flax/nnx/nn/linear.py,
 * normalization.py, attention.py, stochastic.py, activations.py (flax 0.12.8).
 */
import type { DType } from '../../../../shared/src/facts';
import type { ArrayValue, Args, CatValue, Dim, LayerEntry, ParamSpec, UnknownValue } from '../../interp/catalog-types';
import { int, ints, isUnknown, unknown } from '../args';
import { initFill, initPartition, initSampler, type Sampler } from '../initializers';
import { FLAX_LAYERS } from '../flax/catalog';

const V = 'flax 0.12.8';

/** param_dtype: float32 unless a dtype object is given (every nnx layer: `param_dtype: Dtype = jnp.float32`). */
function pdt(v: CatValue | undefined): DType {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'dtype' ? v.dtype : 'float32';
}
/** Output dtype: `dtype`, or (None) the promotion of input and params, approximated by the input's. */
function odt(a: Args, x: ArrayValue): DType {
  return typeof a.dtype === 'object' && a.dtype !== null && !Array.isArray(a.dtype) && a.dtype.kind === 'dtype' ? a.dtype.dtype : x.dtype;
}
function spec(name: string, shape: Dim[], dtype: DType, init: ParamSpec['init'], initArg?: CatValue, role: ParamSpec['role'] = 'param', dfltSampler?: Sampler): ParamSpec {
  const s: ParamSpec = { name, shape, dtype, role, init: initArg === undefined ? init : initFill(initArg, init === 'random' || init === 'zeros' || init === 'ones' ? init : 'random') };
  const part = initPartition(initArg);
  if (part) s.partition = part;
  const sampler = initSampler(initArg, dfltSampler);
  if (sampler) s.sampler = sampler;
  return s;
}
/**
 * The default kernel initializer of nnx Linear, LinearGeneral, Conv, ConvTranspose and Einsum,
 * `default_kernel_init = initializers.lecun_normal()`, draws with `random.truncated_normal`; Embed's
 * `default_embed_init = initializers.variance_scaling(1.0, 'fan_in', 'normal', out_axis=0)` with `random.normal`
 * (flax/nnx/nn/linear.py, flax 0.12.8; jax/_src/nn/initializers.py, jax 0.10.2).
 */
const KERNEL_DEFAULT: Sampler = 'truncated_normal';
const EMBED_DEFAULT: Sampler = 'normal';
function names(cls: string, file: string): string[] { return [`flax.nnx.${cls}`, `flax.nnx.nn.${file}.${cls}`]; }
/** Delegates a forward shape to the linen layer with the same computation. */
function linenOutput(cls: string, a: Args, x: ArrayValue): ArrayValue | UnknownValue {
  const e = FLAX_LAYERS.find((l) => l.names.includes(`flax.linen.${cls}`));
  return e?.output ? e.output(a, x) : unknown(`output of nnx.${cls} is not modelled`);
}
const same = (a: Args, x: ArrayValue): ArrayValue => ({ kind: 'array', shape: x.shape, dtype: odt(a, x) });

/** linear.py `_canonicalize_tuple`: an int becomes a 1-tuple. */
function tuple(v: CatValue | undefined, name: string): number[] | UnknownValue { return ints(v, name); }

/**
 * linear.py LinearGeneral.__init__: kernel (*batch_axis.values(), *in_features, *out_features),
 * bias (*batch_axis.values(), *out_features); the kernel is drawn flat and reshaped.
 */
function linearGeneral(a: Args, prefix = ''): ParamSpec[] | UnknownValue {
  const inF = tuple(a.in_features, 'in_features'); if (isUnknown(inF)) return inF;
  const outF = tuple(a.out_features, 'out_features'); if (isUnknown(outF)) return outF;
  if (a.batch_axis !== undefined && !(Array.isArray(a.batch_axis) && a.batch_axis.length === 0)) return unknown('LinearGeneral batch_axis is not modelled');
  const d = pdt(a.param_dtype);
  const out = [spec(`${prefix}kernel`, [...inF, ...outF], d, 'random', a.kernel_init, 'param', KERNEL_DEFAULT)];
  if (a.use_bias !== false) out.push(spec(`${prefix}bias`, outF, d, 'zeros', a.bias_init));
  return out;
}

/** linear.py Conv / ConvTranspose: an int kernel_size is a 1-tuple (`if isinstance(kernel_size, int): kernel_size = (kernel_size,)`). */
function conv(cls: 'Conv' | 'ConvTranspose'): LayerEntry {
  const transpose = cls === 'ConvTranspose';
  return {
    names: names(cls, 'linear'), framework: 'nnx',
    citation: transpose
      ? `flax/nnx/nn/linear.py (${V}) ConvTranspose.__init__: kernel (*kernel_size, in, out) (transpose_kernel: (*k, out, in)), bias (out,)`
      : `flax/nnx/nn/linear.py (${V}) Conv.__init__: kernel (*kernel_size, in // feature_group_count, out), bias (out,)`,
    signature: transpose
      ? ['in_features', 'out_features', 'kernel_size', 'strides', 'padding', 'kernel_dilation', 'use_bias', 'mask', 'dtype', 'param_dtype', 'precision', 'kernel_init', 'bias_init', 'transpose_kernel']
      : ['in_features', 'out_features', 'kernel_size', 'strides', 'padding', 'input_dilation', 'kernel_dilation', 'feature_group_count', 'use_bias', 'mask', 'dtype', 'param_dtype', 'precision', 'kernel_init', 'bias_init'],
    defaults: { padding: 'SAME', use_bias: true, feature_group_count: 1, transpose_kernel: false },
    params: (a: Args) => {
      const cin = int(a.in_features, 'in_features'); if (isUnknown(cin)) return cin;
      const cout = int(a.out_features, 'out_features'); if (isUnknown(cout)) return cout;
      const k = ints(a.kernel_size, 'kernel_size'); if (isUnknown(k)) return k;
      const g = transpose ? 1 : int(a.feature_group_count ?? 1, 'feature_group_count'); if (isUnknown(g)) return g;
      const kshape = transpose ? (a.transpose_kernel === true ? [...k, cout, cin] : [...k, cin, cout]) : [...k, Math.floor(cin / g), cout];
      const d = pdt(a.param_dtype);
      const out = [spec('kernel', kshape, d, 'random', a.kernel_init, 'param', KERNEL_DEFAULT)];
      if (a.use_bias !== false) out.push(spec('bias', [cout], d, 'zeros', a.bias_init));
      return out;
    },
    output: (a: Args, x) => linenOutput(cls, { ...a, features: a.out_features }, x),
  };
}

/** normalization.py: scale ones / bias zeros of shape (num_features,). */
function norm(a: Args, withBias: boolean): ParamSpec[] | UnknownValue {
  const n = int(a.num_features, 'num_features'); if (isUnknown(n)) return n;
  const d = pdt(a.param_dtype);
  const out: ParamSpec[] = [];
  if (a.use_scale !== false) out.push(spec('scale', [n], d, 'ones', a.scale_init));
  if (withBias && a.use_bias !== false) out.push(spec('bias', [n], d, 'zeros', a.bias_init));
  return out;
}

export const NNX_LAYERS: LayerEntry[] = [
  {
    names: names('Linear', 'linear'), framework: 'nnx',
    citation: `flax/nnx/nn/linear.py (${V}) Linear.__init__: kernel (in_features, out_features) lecun_normal, bias (out_features,) zeros, param_dtype float32`,
    signature: ['in_features', 'out_features', 'use_bias', 'dtype', 'param_dtype', 'precision', 'kernel_init', 'bias_init'], defaults: { use_bias: true },
    params: (a: Args) => {
      const i = int(a.in_features, 'in_features'); if (isUnknown(i)) return i;
      const o = int(a.out_features, 'out_features'); if (isUnknown(o)) return o;
      const d = pdt(a.param_dtype);
      const out = [spec('kernel', [i, o], d, 'random', a.kernel_init, 'param', KERNEL_DEFAULT)];
      if (a.use_bias !== false) out.push(spec('bias', [o], d, 'zeros', a.bias_init));
      return out;
    },
    output: (a: Args, x) => {
      const o = int(a.out_features, 'out_features'); if (isUnknown(o)) return o;
      return { kind: 'array', shape: [...x.shape.slice(0, -1), o], dtype: odt(a, x) };
    },
  },
  {
    names: names('LinearGeneral', 'linear'), framework: 'nnx',
    citation: `flax/nnx/nn/linear.py (${V}) LinearGeneral.__init__: kernel (*batch, *in_features, *out_features), bias (*batch, *out_features)`,
    signature: ['in_features', 'out_features', 'axis', 'batch_axis', 'use_bias', 'dtype', 'param_dtype', 'kernel_init', 'bias_init', 'precision'],
    defaults: { axis: -1, use_bias: true },
    params: (a: Args) => linearGeneral(a),
    output: (a: Args, x) => linenOutput('DenseGeneral', { ...a, features: a.out_features }, x),
  },
  {
    // linear.py Einsum.__init__: kernel = kernel_init(key, kernel_shape, param_dtype); bias of bias_shape when given.
    names: names('Einsum', 'linear'), framework: 'nnx',
    citation: `flax/nnx/nn/linear.py (${V}) Einsum.__init__: kernel kernel_shape, bias bias_shape (None: no bias)`,
    signature: ['einsum_str', 'kernel_shape', 'bias_shape', 'dtype', 'param_dtype', 'precision', 'kernel_init', 'bias_init'], defaults: { bias_shape: null },
    params: (a: Args) => {
      const k = ints(a.kernel_shape, 'kernel_shape'); if (isUnknown(k)) return k;
      const d = pdt(a.param_dtype);
      const out = [spec('kernel', k, d, 'random', a.kernel_init, 'param', KERNEL_DEFAULT)];
      if (a.bias_shape !== null && a.bias_shape !== undefined) {
        const b = ints(a.bias_shape, 'bias_shape'); if (isUnknown(b)) return b;
        out.push(spec('bias', b, d, 'zeros', a.bias_init));
      }
      return out;
    },
  },
  conv('Conv'), conv('ConvTranspose'),
  {
    names: names('Embed', 'linear'), framework: 'nnx',
    citation: `flax/nnx/nn/linear.py (${V}) Embed.__init__: embedding (num_embeddings, features), variance_scaling normal`,
    signature: ['num_embeddings', 'features', 'dtype', 'param_dtype', 'embedding_init'], defaults: {},
    params: (a: Args) => {
      const n = int(a.num_embeddings, 'num_embeddings'); if (isUnknown(n)) return n;
      const f = int(a.features, 'features'); if (isUnknown(f)) return f;
      return [spec('embedding', [n, f], pdt(a.param_dtype), 'random', a.embedding_init, 'param', EMBED_DEFAULT)];
    },
    output: (a: Args, x) => {
      const f = int(a.features, 'features'); if (isUnknown(f)) return f;
      // Embed.__init__: `self.dtype = dtype or self.embedding.dtype`.
      return { kind: 'array', shape: [...x.shape, f], dtype: typeof a.dtype === 'object' && a.dtype !== null && !Array.isArray(a.dtype) && a.dtype.kind === 'dtype' ? a.dtype.dtype : pdt(a.param_dtype) };
    },
  },
  {
    // normalization.py BatchNorm.__init__: mean = BatchStat(jnp.zeros((num_features,), jnp.float32)),
    // var = BatchStat(jnp.ones(...)); scale / bias Params in param_dtype.
    names: names('BatchNorm', 'normalization'), framework: 'nnx',
    citation: `flax/nnx/nn/normalization.py (${V}) BatchNorm.__init__: BatchStat mean/var (num_features,) float32, Param scale/bias (num_features,)`,
    signature: ['num_features', 'use_running_average', 'axis', 'momentum', 'epsilon', 'dtype', 'param_dtype', 'use_bias', 'use_scale', 'bias_init', 'scale_init'],
    defaults: { use_bias: true, use_scale: true },
    params: (a: Args) => {
      const n = int(a.num_features, 'num_features'); if (isUnknown(n)) return n;
      const ps = norm(a, true); if (isUnknown(ps)) return ps;
      return [spec('mean', [n], 'float32', 'zeros', undefined, 'buffer'), spec('var', [n], 'float32', 'ones', undefined, 'buffer'), ...ps];
    },
    output: same,
  },
  {
    names: names('LayerNorm', 'normalization'), framework: 'nnx',
    citation: `flax/nnx/nn/normalization.py (${V}) LayerNorm.__init__: scale ones, bias zeros (num_features,)`,
    signature: ['num_features', 'epsilon', 'dtype', 'param_dtype', 'use_bias', 'use_scale', 'bias_init', 'scale_init'], defaults: { use_bias: true, use_scale: true },
    params: (a: Args) => norm(a, true), output: same,
  },
  {
    names: names('RMSNorm', 'normalization'), framework: 'nnx',
    citation: `flax/nnx/nn/normalization.py (${V}) RMSNorm.__init__: scale ones (num_features,), no bias`,
    signature: ['num_features', 'epsilon', 'dtype', 'param_dtype', 'use_scale', 'scale_init'], defaults: { use_scale: true },
    params: (a: Args) => norm(a, false), output: same,
  },
  {
    names: names('GroupNorm', 'normalization'), framework: 'nnx',
    citation: `flax/nnx/nn/normalization.py (${V}) GroupNorm.__init__: scale ones, bias zeros (num_features,)`,
    signature: ['num_features', 'num_groups', 'group_size', 'epsilon', 'dtype', 'param_dtype', 'use_bias', 'use_scale', 'bias_init', 'scale_init'],
    defaults: { num_groups: 32, use_bias: true, use_scale: true },
    params: (a: Args) => norm(a, true), output: same,
  },
  {
    names: names('InstanceNorm', 'normalization'), framework: 'nnx',
    citation: `flax/nnx/nn/normalization.py (${V}) InstanceNorm.__init__: scale ones, bias zeros (num_features,)`,
    signature: ['num_features', 'epsilon', 'dtype', 'param_dtype', 'use_bias', 'use_scale', 'bias_init', 'scale_init'], defaults: { use_bias: true, use_scale: true },
    params: (a: Args) => norm(a, true), output: same,
  },
  {
    // attention.py MultiHeadAttention.__init__: query LinearGeneral(in, (heads, head_dim)), key/value
    // LinearGeneral(in_kv, (kv_heads, head_dim)), out LinearGeneral((heads, head_dim), out, axis=(-2, -1));
    // normalize_qk adds LayerNorm(head_dim, use_bias=False) for query and key. head_dim = qkv_features // heads.
    names: names('MultiHeadAttention', 'attention'), framework: 'nnx',
    citation: `flax/nnx/nn/attention.py (${V}) MultiHeadAttention.__init__: query/key/value/out LinearGeneral, query_ln/key_ln with normalize_qk`,
    signature: ['num_heads', 'in_features', 'qkv_features', 'out_features', 'num_kv_heads', 'in_kv_features', 'dtype', 'param_dtype', 'broadcast_dropout', 'dropout_rate', 'deterministic', 'precision', 'kernel_init', 'out_kernel_init', 'bias_init', 'out_bias_init', 'use_bias', 'attention_fn', 'decode', 'normalize_qk'],
    defaults: { qkv_features: null, out_features: null, num_kv_heads: null, in_kv_features: null, use_bias: true, normalize_qk: false },
    params: (a: Args) => {
      const h = int(a.num_heads, 'num_heads'); if (isUnknown(h)) return h;
      const inF = int(a.in_features, 'in_features'); if (isUnknown(inF)) return inF;
      const opt = (v: CatValue | undefined, dflt: number, n: string) => (v === null || v === undefined ? dflt : int(v, n));
      const qkv = opt(a.qkv_features, inF, 'qkv_features'); if (isUnknown(qkv)) return qkv;
      const outF = opt(a.out_features, inF, 'out_features'); if (isUnknown(outF)) return outF;
      const inKv = opt(a.in_kv_features, inF, 'in_kv_features'); if (isUnknown(inKv)) return inKv;
      const kvh = opt(a.num_kv_heads, h, 'num_kv_heads'); if (isUnknown(kvh)) return kvh;
      const hd = Math.floor(qkv / h);
      const lg = (prefix: string, i: number[], o: number[], kernelInit?: CatValue, biasInit?: CatValue) =>
        linearGeneral({ ...a, in_features: i, out_features: o, batch_axis: undefined, kernel_init: kernelInit, bias_init: biasInit }, prefix);
      const out: ParamSpec[] = [];
      for (const part of [lg('query.', [inF], [h, hd], a.kernel_init, a.bias_init), lg('key.', [inKv], [kvh, hd], a.kernel_init, a.bias_init), lg('value.', [inKv], [kvh, hd], a.kernel_init, a.bias_init)]) {
        if (isUnknown(part)) return part;
        out.push(...part);
      }
      if (a.normalize_qk === true) out.push(spec('query_ln.scale', [hd], pdt(a.param_dtype), 'ones'), spec('key_ln.scale', [hd], pdt(a.param_dtype), 'ones'));
      const o = lg('out.', [h, hd], [outF], a.out_kernel_init ?? a.kernel_init, a.out_bias_init ?? a.bias_init);
      if (isUnknown(o)) return o;
      out.push(...o);
      return out;
    },
    output: (a: Args, x) => {
      const inF = int(a.in_features, 'in_features'); if (isUnknown(inF)) return inF;
      const o = a.out_features === null || a.out_features === undefined ? inF : int(a.out_features, 'out_features');
      if (isUnknown(o)) return o;
      return { kind: 'array', shape: [...x.shape.slice(0, -1), o], dtype: odt(a, x) };
    },
  },
  {
    // stochastic.py Dropout: the rate and an RNG stream, no Param.
    names: names('Dropout', 'stochastic'), framework: 'nnx',
    citation: `flax/nnx/nn/stochastic.py (${V}) Dropout: no parameters`,
    signature: ['rate', 'broadcast_dims', 'deterministic', 'rng_collection'], defaults: {},
    params: () => [], output: (_a: Args, x) => x,
  },
  {
    // activations.py PReLU.__init__: negative_slope = Param(jnp.asarray(negative_slope_init, dtype=param_dtype)), a 0-d array.
    names: names('PReLU', 'activations'), framework: 'nnx',
    citation: `flax/nnx/nn/activations.py (${V}) PReLU.__init__: negative_slope 0-d Param`,
    signature: ['negative_slope_init', 'dtype', 'param_dtype'], defaults: { negative_slope_init: 0.01 },
    params: (a: Args) => [spec('negative_slope', [], pdt(a.param_dtype), 'constant')], output: (_a: Args, x) => x,
  },
];
