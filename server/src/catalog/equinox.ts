/**
 * Equinox layers (bootstrap version; the owner is writing the full
 * catalogue). Shapes mirror equinox/nn/_linear.py, _embedding.py, _mlp.py,
 * _normalisation.py (v0.11.x): dtype=None means float32 without x64.
 */
import type { DType } from '../../../shared/src/facts';
import type { Args, CatValue, Dim, LayerEntry, ParamSpec, UnknownValue } from './types';

function dt(v: CatValue | undefined): DType {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'dtype' ? v.dtype : 'float32';
}
function size(v: CatValue | undefined, name: string): Dim[] | UnknownValue {
  if (v === 'scalar') return [];
  if (typeof v === 'number') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return v as number[];
  return { kind: 'unknown', reason: `${name} is not known` };
}
function linear(inF: CatValue | undefined, outF: CatValue | undefined, bias: boolean, dtype: DType, prefix = ''): ParamSpec[] | UnknownValue {
  const i = size(inF, 'in_features'); const o = size(outF, 'out_features');
  if (!Array.isArray(i)) return i;
  if (!Array.isArray(o)) return o;
  const specs: ParamSpec[] = [{ name: `${prefix}weight`, shape: [...o, ...i], dtype, role: 'param', init: 'random' }];
  if (bias) specs.push({ name: `${prefix}bias`, shape: o, dtype, role: 'param', init: 'random' });
  return specs;
}

export const EQUINOX_LAYERS: LayerEntry[] = [
  {
    names: ['equinox.nn.Linear'], framework: 'equinox', citation: 'equinox/nn/_linear.py (v0.11.4) Linear.__init__',
    signature: ['in_features', 'out_features', 'use_bias', 'dtype'], defaults: { use_bias: true },
    params: (a: Args) => linear(a.in_features, a.out_features, a.use_bias !== false, dt(a.dtype)),
    output: (a: Args, x) => ({ kind: 'array', shape: typeof a.out_features === 'number' ? [...x.shape.slice(0, -1), a.out_features] : x.shape.slice(0, -1), dtype: x.dtype }),
  },
  {
    names: ['equinox.nn.Embedding'], framework: 'equinox', citation: 'equinox/nn/_embedding.py (v0.11.4)',
    signature: ['num_embeddings', 'embedding_size', 'weight', 'dtype'], defaults: {},
    params: (a: Args) => (typeof a.num_embeddings === 'number' && typeof a.embedding_size === 'number'
      ? [{ name: 'weight', shape: [a.num_embeddings, a.embedding_size], dtype: dt(a.dtype), role: 'param', init: 'random' }]
      : { kind: 'unknown', reason: 'num_embeddings / embedding_size not known' }),
  },
  {
    names: ['equinox.nn.MLP'], framework: 'equinox', citation: 'equinox/nn/_mlp.py (v0.11.4): depth hidden layers, depth+1 Linear layers',
    signature: ['in_size', 'out_size', 'width_size', 'depth', 'activation', 'final_activation', 'use_bias', 'use_final_bias', 'dtype'],
    defaults: { use_bias: true, use_final_bias: true },
    params: (a: Args) => {
      if (typeof a.depth !== 'number') return { kind: 'unknown', reason: 'depth is not known' };
      const d = dt(a.dtype);
      const out: ParamSpec[] = [];
      const sizes = a.depth === 0 ? [[a.in_size, a.out_size]] : [[a.in_size, a.width_size], ...Array.from({ length: a.depth - 1 }, () => [a.width_size, a.width_size]), [a.width_size, a.out_size]];
      for (let i = 0; i < sizes.length; i++) {
        const last = i === sizes.length - 1;
        const l = linear(sizes[i][0], sizes[i][1], last ? a.use_final_bias !== false : a.use_bias !== false, d, `layers.${i}.`);
        if (!Array.isArray(l)) return l;
        out.push(...l);
      }
      return out;
    },
    output: (a: Args, x) => ({ kind: 'array', shape: typeof a.out_size === 'number' ? [...x.shape.slice(0, -1), a.out_size] : x.shape.slice(0, -1), dtype: x.dtype }),
  },
  {
    names: ['equinox.nn.RMSNorm'], framework: 'equinox', citation: 'equinox/nn/_normalisation.py (v0.11.4) RMSNorm: use_weight=True, use_bias=False',
    signature: ['shape', 'eps', 'use_weight', 'use_bias', 'dtype'], defaults: { use_weight: true, use_bias: false },
    params: (a: Args) => {
      const s = size(a.shape, 'shape');
      if (!Array.isArray(s)) return s;
      const out: ParamSpec[] = [];
      if (a.use_weight !== false) out.push({ name: 'weight', shape: s, dtype: dt(a.dtype), role: 'param', init: 'ones' });
      if (a.use_bias === true) out.push({ name: 'bias', shape: s, dtype: dt(a.dtype), role: 'param', init: 'zeros' });
      return out;
    },
  },
  {
    names: ['equinox.nn.LayerNorm'], framework: 'equinox', citation: 'equinox/nn/_normalisation.py (v0.11.4) LayerNorm: use_weight=True, use_bias=True',
    signature: ['shape', 'eps', 'use_weight', 'use_bias', 'dtype'], defaults: { use_weight: true, use_bias: true },
    params: (a: Args) => {
      const s = size(a.shape, 'shape');
      if (!Array.isArray(s)) return s;
      const out: ParamSpec[] = [];
      if (a.use_weight !== false) out.push({ name: 'weight', shape: s, dtype: dt(a.dtype), role: 'param', init: 'ones' });
      if (a.use_bias !== false) out.push({ name: 'bias', shape: s, dtype: dt(a.dtype), role: 'param', init: 'zeros' });
      return out;
    },
  },
];
