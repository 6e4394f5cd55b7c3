/**
 * PyTorch layers (bootstrap version; the owner is writing the full
 * catalogue checked against real PyTorch). Shapes mirror
 * torch/nn/modules/linear.py, sparse.py, normalization.py, batchnorm.py (2.1).
 */
import type { DType } from '../../../shared/src/facts';
import type { Args, CatValue, LayerEntry, ParamSpec } from './types';

function dt(v: CatValue | undefined): DType {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'dtype' ? v.dtype : 'float32';
}
const none = (names: string[]): LayerEntry => ({ names, framework: 'torch', citation: 'torch/nn/modules (no parameters)', signature: [], defaults: {}, params: () => [] });

export const TORCH_LAYERS: LayerEntry[] = [
  {
    names: ['torch.nn.Linear'], framework: 'torch', citation: 'torch/nn/modules/linear.py (2.1) Linear',
    signature: ['in_features', 'out_features', 'bias', 'device', 'dtype'], defaults: { bias: true },
    params: (a: Args) => {
      if (typeof a.in_features !== 'number' || typeof a.out_features !== 'number') return { kind: 'unknown', reason: 'in_features / out_features not known' };
      const s: ParamSpec[] = [{ name: 'weight', shape: [a.out_features, a.in_features], dtype: dt(a.dtype), role: 'param', init: 'random' }];
      if (a.bias !== false) s.push({ name: 'bias', shape: [a.out_features], dtype: dt(a.dtype), role: 'param', init: 'random' });
      return s;
    },
  },
  {
    names: ['torch.nn.Embedding'], framework: 'torch', citation: 'torch/nn/modules/sparse.py (2.1) Embedding',
    signature: ['num_embeddings', 'embedding_dim', 'padding_idx', 'max_norm', 'norm_type', 'scale_grad_by_freq', 'sparse', '_weight', '_freeze', 'device', 'dtype'], defaults: {},
    params: (a: Args) => (typeof a.num_embeddings === 'number' && typeof a.embedding_dim === 'number'
      ? [{ name: 'weight', shape: [a.num_embeddings, a.embedding_dim], dtype: dt(a.dtype), role: 'param', init: 'random' }]
      : { kind: 'unknown', reason: 'num_embeddings / embedding_dim not known' }),
  },
  {
    names: ['torch.nn.LayerNorm'], framework: 'torch', citation: 'torch/nn/modules/normalization.py (2.1) LayerNorm',
    signature: ['normalized_shape', 'eps', 'elementwise_affine', 'bias', 'device', 'dtype'], defaults: { elementwise_affine: true, bias: true },
    params: (a: Args) => {
      const s = typeof a.normalized_shape === 'number' ? [a.normalized_shape] : Array.isArray(a.normalized_shape) && a.normalized_shape.every((x) => typeof x === 'number') ? (a.normalized_shape as number[]) : undefined;
      if (!s) return { kind: 'unknown', reason: 'normalized_shape not known' };
      if (a.elementwise_affine === false) return [];
      const out: ParamSpec[] = [{ name: 'weight', shape: s, dtype: dt(a.dtype), role: 'param', init: 'ones' }];
      if (a.bias !== false) out.push({ name: 'bias', shape: s, dtype: dt(a.dtype), role: 'param', init: 'zeros' });
      return out;
    },
  },
  {
    names: ['torch.nn.BatchNorm1d', 'torch.nn.BatchNorm2d', 'torch.nn.BatchNorm3d'], framework: 'torch', citation: 'torch/nn/modules/batchnorm.py (2.1) _NormBase',
    signature: ['num_features', 'eps', 'momentum', 'affine', 'track_running_stats', 'device', 'dtype'], defaults: { affine: true, track_running_stats: true },
    params: (a: Args) => {
      if (typeof a.num_features !== 'number') return { kind: 'unknown', reason: 'num_features not known' };
      const n = a.num_features;
      const out: ParamSpec[] = [];
      if (a.affine !== false) out.push({ name: 'weight', shape: [n], dtype: dt(a.dtype), role: 'param', init: 'ones' }, { name: 'bias', shape: [n], dtype: dt(a.dtype), role: 'param', init: 'zeros' });
      if (a.track_running_stats !== false) out.push({ name: 'running_mean', shape: [n], dtype: dt(a.dtype), role: 'buffer', init: 'zeros' }, { name: 'running_var', shape: [n], dtype: dt(a.dtype), role: 'buffer', init: 'ones' }, { name: 'num_batches_tracked', shape: [], dtype: 'int64', role: 'buffer', init: 'zeros' });
      return out;
    },
  },
  none(['torch.nn.ReLU', 'torch.nn.GELU', 'torch.nn.Dropout', 'torch.nn.Identity', 'torch.nn.Tanh', 'torch.nn.SiLU', 'torch.nn.Flatten']),
];
