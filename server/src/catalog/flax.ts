/**
 * Flax linen layers (bootstrap version; the owner is writing the full
 * catalogue). Dense mirrors flax/linen/linear.py (v0.8.5): kernel
 * [in, features] in param_dtype float32 with lecun_normal, bias zeros.
 */
import type { Args, CatValue, InitValue, LayerEntry, ParamSpec } from './types';

function init(v: CatValue | undefined): InitValue | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'init' ? v : undefined;
}

export const FLAX_LAYERS: LayerEntry[] = [
  {
    names: ['flax.linen.Dense'], framework: 'flax', citation: 'flax/linen/linear.py (v0.8.5) Dense.__call__',
    signature: ['features', 'use_bias', 'dtype', 'param_dtype', 'precision', 'kernel_init', 'bias_init'], defaults: { use_bias: true },
    params: (a: Args, x) => {
      if (!x) return { kind: 'unknown', reason: 'Dense needs its input to size the kernel' };
      if (typeof a.features !== 'number') return { kind: 'unknown', reason: 'features is not known' };
      const k = init(a.kernel_init);
      const specs: ParamSpec[] = [{ name: 'kernel', shape: [x.shape[x.shape.length - 1], a.features], dtype: 'float32', role: 'param', init: k && !k.random ? 'zeros' : 'random', partition: k?.partition }];
      if (a.use_bias !== false) specs.push({ name: 'bias', shape: [a.features], dtype: 'float32', role: 'param', init: 'zeros', partition: init(a.bias_init)?.partition });
      return specs;
    },
    output: (a: Args, x) => ({ kind: 'array', shape: [...x.shape.slice(0, -1), typeof a.features === 'number' ? a.features : { unknown: 'features' }], dtype: x.dtype }),
  },
];
