// flax.linen constructor fields that change parameter shapes or dtypes, read
// from flax/linen/{linear,normalization,attention}.py of flax 0.12.8. Flax
// layers create their parameters at the first call, so each row carries the
// input's shape. `dtype` is the computation dtype and must NOT change the
// parameters; `param_dtype` must.
import { bf16, f16, type SignatureTable } from './types';

export const FLAX_SIGNATURES: SignatureTable = {
  framework: 'flax',
  version: '0.12.8',
  rows: [
    { layer: 'Dense', source: 'flax/linen/linear.py', args: [16], input: [2, 8], vary: { use_bias: [false], dtype: [bf16], param_dtype: [bf16, f16] } },
    { layer: 'DenseGeneral', source: 'flax/linen/linear.py', args: [[4, 6]], input: [2, 8], vary: { use_bias: [false], param_dtype: [bf16], dtype: [bf16] } },
    { layer: 'DenseGeneral', source: 'flax/linen/linear.py', args: [12], kwargs: { axis: [-2, -1] }, input: [2, 3, 8], vary: { use_bias: [false], param_dtype: [bf16] } },
    { layer: 'Embed', source: 'flax/linen/linear.py', args: [100, 16], input: [2, 5], inputDtype: 'int32', vary: { param_dtype: [bf16], dtype: [bf16], features: [4] } },
    { layer: 'Conv', source: 'flax/linen/linear.py', args: [8, [3, 3]], input: [1, 8, 8, 4], vary: { use_bias: [false], feature_group_count: [2, 4], param_dtype: [bf16], dtype: [bf16], kernel_size: [[5, 1]] } },
    { layer: 'ConvTranspose', source: 'flax/linen/linear.py', args: [6, [3, 3]], input: [1, 8, 8, 4], vary: { use_bias: [false], param_dtype: [bf16], transpose_kernel: [true] } },
    { layer: 'LayerNorm', source: 'flax/linen/normalization.py', args: [], input: [2, 5, 16], vary: { use_bias: [false], use_scale: [false], param_dtype: [bf16], dtype: [bf16] } },
    { layer: 'RMSNorm', source: 'flax/linen/normalization.py', args: [], input: [2, 5, 16], vary: { use_scale: [false], param_dtype: [bf16], dtype: [bf16] } },
    { layer: 'GroupNorm', source: 'flax/linen/normalization.py', args: [], kwargs: { num_groups: 4 }, input: [2, 4, 4, 16], vary: { use_bias: [false], use_scale: [false], param_dtype: [bf16] } },
    { layer: 'BatchNorm', source: 'flax/linen/normalization.py', args: [], kwargs: { use_running_average: false }, input: [4, 10], vary: { use_bias: [false], use_scale: [false], param_dtype: [bf16], dtype: [bf16] } },
    { layer: 'MultiHeadDotProductAttention', source: 'flax/linen/attention.py', args: [4], input: [2, 5, 16], vary: { qkv_features: [32], out_features: [8], use_bias: [false], param_dtype: [bf16], dtype: [bf16] } },
    { layer: 'SelfAttention', source: 'flax/linen/attention.py', args: [4], input: [2, 5, 16], vary: { qkv_features: [32], use_bias: [false], param_dtype: [bf16] } },
  ],
};
