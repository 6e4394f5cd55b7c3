/**
 * Haiku layer catalogue. Haiku modules create parameters with
 * hk.get_parameter at the first call, sized from the input, so `params`
 * receives the first positional input array and returns unknown without it.
 * Most haiku layers create parameters in the INPUT's dtype (they pass
 * `dtype=inputs.dtype` to get_parameter); Embed uses get_parameter's default
 * float32. Shapes mirror haiku/_src/basic.py, conv.py, embed.py,
 * layer_norm.py, batch_norm.py, moving_averages.py, attention.py
 * (dm-haiku v0.0.12). Parameter names are the module-relative
 * 'w' / 'b' etc.; the interpreter adds the module name.
 */
import type { DType } from '../../../../shared/src/facts';
import type { ArrayValue, Args, CatValue, Dim, LayerEntry, ParamSpec, UnknownValue } from '../../interp/catalog-types';
import { int, ints, isUnknown, unknown } from '../args';
import { initFill } from '../initializers';
import { poolShape } from '../ops';

const V = 'dm-haiku v0.0.12';

function needInput(x: ArrayValue | undefined, cls: string): ArrayValue | UnknownValue {
  return x ?? unknown(`haiku ${cls} creates its parameters at the first call and needs its input to size them`);
}
function axisIndex(ax: number, rank: number): number { return ax < 0 ? rank + ax : ax; }
function p(name: string, shape: Dim[], dtype: DType, init: ParamSpec['init'], role: ParamSpec['role'] = 'param'): ParamSpec {
  return { name, shape, dtype, role, init };
}
function last(x: ArrayValue): Dim { return x.shape[x.shape.length - 1]; }

/**
 * basic.py Linear.__call__: w (input_size, output_size) with default
 * TruncatedNormal(1/sqrt(input_size)), b (output_size,) zeros, dtype =
 * inputs.dtype.
 */
function linearParams(out: number, inF: Dim, dtype: DType, withBias: boolean, wInit: CatValue | undefined, bInit: CatValue | undefined, prefix = ''): ParamSpec[] {
  const specs = [p(`${prefix}w`, [inF, out], dtype, initFill(wInit, 'random'))];
  if (withBias) specs.push(p(`${prefix}b`, [out], dtype, initFill(bInit, 'zeros')));
  return specs;
}

/** conv.py ConvND: channel axis is last for channels_last formats (NWC/NHWC/NDHWC), 1 for NC*. */
function channelIndex(format: CatValue | undefined): number {
  return typeof format === 'string' && format.startsWith('NC') ? 1 : -1;
}
function convN(cls: string, n: number | undefined): LayerEntry {
  const fmt = n === 1 ? 'NWC' : n === 3 ? 'NDHWC' : 'NHWC';
  const sig = ['output_channels', 'kernel_shape', 'stride', 'rate', 'padding', 'with_bias', 'w_init', 'b_init', 'data_format', 'mask', 'feature_group_count', 'name'];
  return {
    names: [`haiku.${cls}`, `haiku._src.conv.${cls}`],
    framework: 'haiku',
    citation: `haiku/_src/conv.py (${V}) ConvND.__call__: w (*kernel_shape, in // feature_group_count, output_channels), b (output_channels,) zeros, dtype = inputs.dtype`,
    signature: n === undefined ? ['num_spatial_dims', ...sig] : sig,
    defaults: { stride: 1, rate: 1, padding: 'SAME', with_bias: true, data_format: n === undefined ? 'channels_last' : fmt, feature_group_count: 1 },
    params: (a: Args, input) => {
      const x = needInput(input, cls); if (isUnknown(x)) return x;
      const nd = n ?? int(a.num_spatial_dims, 'num_spatial_dims'); if (isUnknown(nd)) return nd;
      const out = int(a.output_channels, 'output_channels'); if (isUnknown(out)) return out;
      const k0 = ints(a.kernel_shape, 'kernel_shape'); if (isUnknown(k0)) return k0;
      const k = k0.length === 1 ? Array.from({ length: nd }, () => k0[0]) : k0;
      const g = int(a.feature_group_count ?? 1, 'feature_group_count'); if (isUnknown(g)) return g;
      const cin = x.shape[axisIndex(channelIndex(a.data_format), x.shape.length)];
      const inF: Dim = typeof cin === 'number' ? Math.floor(cin / g) : cin;
      const specs = [p('w', [...k, inF, out], x.dtype, initFill(a.w_init, 'random'))];
      if (a.with_bias !== false) specs.push(p('b', [out], x.dtype, initFill(a.b_init, 'zeros')));
      return specs;
    },
    output: (a: Args, x) => {
      const nd = n ?? int(a.num_spatial_dims, 'num_spatial_dims'); if (isUnknown(nd)) return nd;
      const out = int(a.output_channels, 'output_channels'); if (isUnknown(out)) return out;
      const k0 = ints(a.kernel_shape, 'kernel_shape'); if (isUnknown(k0)) return k0;
      const k = k0.length === 1 ? Array.from({ length: nd }, () => k0[0]) : k0;
      const s0 = ints(a.stride ?? 1, 'stride'); if (isUnknown(s0)) return s0;
      const s = s0.length === 1 ? Array.from({ length: nd }, () => s0[0]) : s0;
      const r0 = ints(a.rate ?? 1, 'rate'); if (isUnknown(r0)) return r0;
      const r = r0.length === 1 ? Array.from({ length: nd }, () => r0[0]) : r0;
      if (a.padding !== 'SAME' && a.padding !== 'VALID' && a.padding !== undefined) return unknown('padding other than SAME/VALID is not modelled');
      const cfirst = channelIndex(a.data_format) === 1;
      const rank = x.shape.length;
      const spStart = cfirst ? 2 : rank - 1 - nd;
      const shape = [...x.shape];
      for (let i = 0; i < nd; i++) {
        const len = shape[spStart + i];
        if (typeof len !== 'number') continue;
        const ek = r[i] * (k[i] - 1) + 1;
        shape[spStart + i] = a.padding === 'VALID' ? Math.floor((len - ek) / s[i]) + 1 : Math.ceil(len / s[i]);
      }
      shape[cfirst ? 1 : rank - 1] = out;
      return { kind: 'array', shape, dtype: x.dtype };
    },
  };
}

/** layer_norm.py LayerNorm / RMSNorm: param shape = [inputs.shape[i] for i in param_axis], param_axis default (-1,). */
function paramShape(x: ArrayValue, paramAxis: CatValue | undefined): Dim[] | UnknownValue {
  const ax = paramAxis === undefined || paramAxis === null ? [-1] : ints(paramAxis, 'param_axis');
  if (isUnknown(ax)) return ax;
  return ax.map((i) => x.shape[axisIndex(i, x.shape.length)]);
}

export const HAIKU_LAYERS: LayerEntry[] = [
  {
    names: ['haiku.Linear', 'haiku._src.basic.Linear'], framework: 'haiku',
    citation: `haiku/_src/basic.py (${V}) Linear.__call__: w (input_size, output_size) TruncatedNormal(1/sqrt(fan_in)), b zeros, dtype = inputs.dtype`,
    signature: ['output_size', 'with_bias', 'w_init', 'b_init', 'name'], defaults: { with_bias: true },
    params: (a: Args, input) => {
      const x = needInput(input, 'Linear'); if (isUnknown(x)) return x;
      const o = int(a.output_size, 'output_size'); if (isUnknown(o)) return o;
      return linearParams(o, last(x), x.dtype, a.with_bias !== false, a.w_init, a.b_init);
    },
    output: (a: Args, x) => {
      const o = int(a.output_size, 'output_size'); if (isUnknown(o)) return o;
      return { kind: 'array', shape: [...x.shape.slice(0, -1), o], dtype: x.dtype };
    },
  },
  convN('ConvND', undefined), convN('Conv1D', 1), convN('Conv2D', 2), convN('Conv3D', 3),
  {
    // embed.py Embed.__init__: embeddings (vocab_size, embed_dim) created via
    // hk.get_parameter with its default dtype float32 and
    // TruncatedNormal(stddev=1) by default.
    names: ['haiku.Embed', 'haiku._src.embed.Embed'], framework: 'haiku',
    citation: `haiku/_src/embed.py (${V}) Embed: embeddings (vocab_size, embed_dim) float32, TruncatedNormal`,
    signature: ['vocab_size', 'embed_dim', 'embedding_matrix', 'w_init', 'lookup_style', 'name', 'precision'], defaults: {},
    params: (a: Args) => {
      const m = a.embedding_matrix;
      if (typeof m === 'object' && m !== null && !Array.isArray(m) && m.kind === 'array') return [p('embeddings', m.shape, m.dtype, 'constant')];
      const v = int(a.vocab_size, 'vocab_size'); if (isUnknown(v)) return v;
      const e = int(a.embed_dim, 'embed_dim'); if (isUnknown(e)) return e;
      return [p('embeddings', [v, e], 'float32', initFill(a.w_init, 'random'))];
    },
    output: (a: Args, x) => {
      const e = int(a.embed_dim, 'embed_dim'); if (isUnknown(e)) return e;
      return { kind: 'array', shape: [...x.shape, e], dtype: 'float32' };
    },
  },
  {
    names: ['haiku.LayerNorm', 'haiku._src.layer_norm.LayerNorm'], framework: 'haiku',
    citation: `haiku/_src/layer_norm.py (${V}) LayerNorm.__call__: scale ones / offset zeros of shape inputs.shape[param_axis] (default -1), dtype = inputs.dtype`,
    signature: ['axis', 'create_scale', 'create_offset', 'eps', 'scale_init', 'offset_init', 'use_fast_variance', 'name', 'param_axis'], defaults: {},
    params: (a: Args, input) => {
      if (a.create_scale === undefined) return unknown('create_scale is required by haiku LayerNorm and is not known');
      if (a.create_offset === undefined) return unknown('create_offset is required by haiku LayerNorm and is not known');
      if (a.create_scale !== true && a.create_offset !== true) return [];
      const x = needInput(input, 'LayerNorm'); if (isUnknown(x)) return x;
      const s = paramShape(x, a.param_axis); if (isUnknown(s)) return s;
      const specs: ParamSpec[] = [];
      if (a.create_scale === true) specs.push(p('scale', s, x.dtype, initFill(a.scale_init, 'ones')));
      if (a.create_offset === true) specs.push(p('offset', s, x.dtype, initFill(a.offset_init, 'zeros')));
      return specs;
    },
    output: (_a: Args, x) => x,
  },
  {
    names: ['haiku.RMSNorm', 'haiku._src.layer_norm.RMSNorm'], framework: 'haiku',
    citation: `haiku/_src/layer_norm.py (${V}) RMSNorm.__call__: scale ones of shape inputs.shape[param_axis] (default -1) when create_scale`,
    signature: ['axis', 'eps', 'scale_init', 'name', 'create_scale', 'param_axis'], defaults: { create_scale: true },
    params: (a: Args, input) => {
      if (a.create_scale === false) return [];
      const x = needInput(input, 'RMSNorm'); if (isUnknown(x)) return x;
      const s = paramShape(x, a.param_axis); if (isUnknown(s)) return s;
      return [p('scale', s, x.dtype, initFill(a.scale_init, 'ones'))];
    },
    output: (_a: Args, x) => x,
  },
  {
    // batch_norm.py BatchNorm.__call__: stats keep dims, so scale / offset
    // and the moving statistics have shape [1, ..., C] (C at the channel
    // axis, 1 elsewhere). mean_ema / var_ema are ExponentialMovingAverage
    // modules (moving_averages.py): each keeps state 'counter' (int32 scalar),
    // 'hidden' and 'average' of the statistic's shape and dtype.
    names: ['haiku.BatchNorm', 'haiku._src.batch_norm.BatchNorm'], framework: 'haiku',
    citation: `haiku/_src/batch_norm.py + moving_averages.py (${V}) BatchNorm: scale/offset [1..C..1], mean_ema/var_ema state counter + hidden + average`,
    signature: ['create_scale', 'create_offset', 'decay_rate', 'eps', 'scale_init', 'offset_init', 'axis', 'cross_replica_axis', 'cross_replica_axis_index_groups', 'data_format', 'name'],
    defaults: { data_format: 'channels_last' },
    params: (a: Args, input) => {
      if (a.create_scale === undefined) return unknown('create_scale is required by haiku BatchNorm and is not known');
      if (a.create_offset === undefined) return unknown('create_offset is required by haiku BatchNorm and is not known');
      const x = needInput(input, 'BatchNorm'); if (isUnknown(x)) return x;
      const rank = x.shape.length;
      const ci = axisIndex(channelIndex(a.data_format === 'channels_first' ? 'NC' : a.data_format), rank);
      const shape: Dim[] = x.shape.map((d, i) => (i === ci ? d : 1));
      const specs: ParamSpec[] = [];
      for (const ema of ['mean_ema', 'var_ema']) {
        specs.push(p(`${ema}.counter`, [], 'int32', 'zeros', 'buffer'));
        specs.push(p(`${ema}.hidden`, shape, x.dtype, 'zeros', 'buffer'));
        specs.push(p(`${ema}.average`, shape, x.dtype, 'zeros', 'buffer'));
      }
      if (a.create_scale === true) specs.push(p('scale', shape, x.dtype, initFill(a.scale_init, 'ones')));
      if (a.create_offset === true) specs.push(p('offset', shape, x.dtype, initFill(a.offset_init, 'zeros')));
      return specs;
    },
    output: (_a: Args, x) => x,
  },
  {
    // group_norm.py GroupNorm.__call__: channels = x.shape[channel_index] must divide by groups (else ValueError);
    // scale / offset of shape (C,) for channels_last, (C, 1, ..., 1) for channels_first, dtype = x.dtype.
    // channel_index from utils.py get_channel_index: 'channels_first' / 'NC…' → 1, 'channels_last' / '…C' → -1.
    names: ['haiku.GroupNorm', 'haiku._src.group_norm.GroupNorm'], framework: 'haiku',
    citation: `haiku/_src/group_norm.py (${V}) GroupNorm.__call__: scale ones / offset zeros (C,) channels_last or (C, 1, …, 1) channels_first, dtype = x.dtype`,
    signature: ['groups', 'axis', 'create_scale', 'create_offset', 'eps', 'scale_init', 'offset_init', 'data_format', 'name'],
    defaults: { create_scale: true, create_offset: true, data_format: 'channels_last' },
    params: (a: Args, input) => {
      const x = needInput(input, 'GroupNorm'); if (isUnknown(x)) return x;
      const g = int(a.groups, 'groups'); if (isUnknown(g)) return g;
      const f = a.data_format;
      const first = f === 'channels_first' || (typeof f === 'string' && f.startsWith('NC'));
      const lastC = f === 'channels_last' || (typeof f === 'string' && /^N\w*C$/.test(f));
      if (!first && !lastC) return unknown('GroupNorm data_format is not known');
      if (first && x.shape.length < 2) return unknown('GroupNorm channels_first needs an input of rank 2 or more');
      const c = x.shape[first ? 1 : x.shape.length - 1];
      if (typeof c === 'number' && c % g !== 0) return unknown(`GroupNorm: ${c} channels do not divide into ${g} groups (haiku raises)`);
      const shape: Dim[] = first ? [c, ...x.shape.slice(2).map(() => 1)] : [c];
      const specs: ParamSpec[] = [];
      if (a.create_scale !== false) specs.push(p('scale', shape, x.dtype, initFill(a.scale_init, 'ones')));
      if (a.create_offset !== false) specs.push(p('offset', shape, x.dtype, initFill(a.offset_init, 'zeros')));
      return specs;
    },
    output: (_a: Args, x) => x,
  },
  ...(['MaxPool', 'AvgPool'] as const).map((cls): LayerEntry => ({
    // pool.py MaxPool / AvgPool(window_shape, strides, padding, channel_axis=-1): no parameters; __call__ is
    // max_pool / avg_pool(value, window_shape, strides, padding, channel_axis).
    names: [`haiku.${cls}`, `haiku._src.pool.${cls}`], framework: 'haiku',
    citation: `haiku/_src/pool.py (${V}) ${cls}: no parameters, __call__ = ${cls === 'MaxPool' ? 'max_pool' : 'avg_pool'}(value, window_shape, strides, padding, channel_axis)`,
    signature: ['window_shape', 'strides', 'padding', 'channel_axis', 'name'],
    defaults: { channel_axis: -1 },
    params: () => [],
    output: (a: Args, x) => {
      if (a.channel_axis !== -1) return unknown('haiku pooling with a channel_axis other than -1 is not modelled');
      const r = poolShape(x, a.window_shape, a.strides, a.padding, 'haiku');
      return r.kind === 'array' ? { kind: 'array', shape: r.shape, dtype: r.dtype } : r.kind === 'unknown' ? r : unknown('pooling result is not an array');
    },
  })),
  {
    // attention.py MultiHeadAttention: value_size defaults to key_size,
    // model_size to key_size * num_heads; query/key/value are
    // hk.Linear(num_heads * size) and the output hk.Linear(model_size) named
    // 'linear', all with_bias=True by default, dtype = inputs.dtype.
    names: ['haiku.MultiHeadAttention', 'haiku._src.attention.MultiHeadAttention'], framework: 'haiku',
    citation: `haiku/_src/attention.py (${V}) MultiHeadAttention: query/key (in, heads*key_size), value (in, heads*value_size), linear (heads*value_size, model_size)`,
    signature: ['num_heads', 'key_size', 'w_init_scale', 'w_init', 'with_bias', 'b_init', 'value_size', 'model_size', 'name'],
    defaults: { with_bias: true, value_size: null, model_size: null },
    params: (a: Args, input) => {
      const x = needInput(input, 'MultiHeadAttention'); if (isUnknown(x)) return x;
      const h = int(a.num_heads, 'num_heads'); if (isUnknown(h)) return h;
      const k = int(a.key_size, 'key_size'); if (isUnknown(k)) return k;
      const v = a.value_size === null || a.value_size === undefined ? k : int(a.value_size, 'value_size'); if (isUnknown(v)) return v;
      const m = a.model_size === null || a.model_size === undefined ? k * h : int(a.model_size, 'model_size'); if (isUnknown(m)) return m;
      const bias = a.with_bias !== false;
      const inF = last(x);
      return [
        ...linearParams(h * k, inF, x.dtype, bias, a.w_init, a.b_init, 'query.'),
        ...linearParams(h * k, inF, x.dtype, bias, a.w_init, a.b_init, 'key.'),
        ...linearParams(h * v, inF, x.dtype, bias, a.w_init, a.b_init, 'value.'),
        ...linearParams(m, h * v, x.dtype, bias, a.w_init, a.b_init, 'linear.'),
      ];
    },
    output: (a: Args, x) => {
      const h = int(a.num_heads, 'num_heads'); if (isUnknown(h)) return h;
      const k = int(a.key_size, 'key_size'); if (isUnknown(k)) return k;
      const m = a.model_size === null || a.model_size === undefined ? k * h : int(a.model_size, 'model_size'); if (isUnknown(m)) return m;
      return { kind: 'array', shape: [...x.shape.slice(0, -1), m], dtype: x.dtype };
    },
  },
];
