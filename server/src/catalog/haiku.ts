/**
 * Haiku layers (bootstrap version; the owner is writing the full catalogue).
 * Linear mirrors haiku/_src/basic.py: w [input_size, output_size] and b
 * [output_size] in the input's dtype; LayerNorm (haiku/_src/layer_norm.py)
 * creates scale/offset over the normalised axis.
 */
import type { Args, LayerEntry, ParamSpec } from './types';

export const HAIKU_LAYERS: LayerEntry[] = [
  {
    names: ['haiku.Linear'], framework: 'haiku', citation: 'haiku/_src/basic.py Linear.__call__',
    signature: ['output_size', 'with_bias', 'w_init', 'b_init', 'name'], defaults: { with_bias: true },
    params: (a: Args, x) => {
      if (!x) return { kind: 'unknown', reason: 'Linear needs its input to size w' };
      if (typeof a.output_size !== 'number') return { kind: 'unknown', reason: 'output_size is not known' };
      const specs: ParamSpec[] = [{ name: 'w', shape: [x.shape[x.shape.length - 1], a.output_size], dtype: x.dtype, role: 'param', init: 'random' }];
      if (a.with_bias !== false) specs.push({ name: 'b', shape: [a.output_size], dtype: x.dtype, role: 'param', init: 'zeros' });
      return specs;
    },
    output: (a: Args, x) => ({ kind: 'array', shape: [...x.shape.slice(0, -1), typeof a.output_size === 'number' ? a.output_size : { unknown: 'output_size' }], dtype: x.dtype }),
  },
  {
    names: ['haiku.LayerNorm'], framework: 'haiku', citation: 'haiku/_src/layer_norm.py LayerNorm.__call__',
    signature: ['axis', 'create_scale', 'create_offset', 'eps', 'scale_init', 'offset_init', 'use_fast_variance', 'name', 'param_axis'], defaults: {},
    params: (a: Args, x) => {
      if (!x) return { kind: 'unknown', reason: 'LayerNorm needs its input' };
      const last = x.shape[x.shape.length - 1];
      const specs: ParamSpec[] = [];
      if (a.create_scale === true) specs.push({ name: 'scale', shape: [last], dtype: x.dtype, role: 'param', init: 'ones' });
      if (a.create_offset === true) specs.push({ name: 'offset', shape: [last], dtype: x.dtype, role: 'param', init: 'zeros' });
      return specs;
    },
    output: (_a: Args, x) => x,
  },
];
