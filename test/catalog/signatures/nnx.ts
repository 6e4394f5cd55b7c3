// flax.nnx constructor arguments that change parameter shapes or dtypes, read
// from flax/nnx/nn/{linear,normalization,attention,stochastic,activations}.py
// of flax 0.12.8. NNX layers make their parameters in the constructor (no
// input needed); layers whose __init__ takes `rngs` get nnx.Rngs(0). `dtype`
// is the computation dtype and must NOT change the parameters; `param_dtype`
// must. BatchNorm's running mean / var (nnx.BatchStat) are the buffers; RNG
// streams a layer keeps (nnx.RngState: Dropout, MultiHeadAttention
// keep_rngs) are a key and a counter, not counted on either side.
import { bf16, f16, type SignatureTable } from './types';

export const NNX_SIGNATURES: SignatureTable = {
  framework: 'nnx',
  version: '0.12.8',
  rows: [
    { layer: 'Linear', source: 'flax/nnx/nn/linear.py', args: [8, 16], vary: { use_bias: [false], dtype: [bf16], param_dtype: [bf16, f16], in_features: [4], out_features: [3] } },
    { layer: 'LinearGeneral', source: 'flax/nnx/nn/linear.py', args: [8, [4, 6]], vary: { use_bias: [false], param_dtype: [bf16], dtype: [bf16], out_features: [12] } },
    { layer: 'LinearGeneral', source: 'flax/nnx/nn/linear.py', args: [[2, 8], 12], kwargs: { axis: [-2, -1] }, vary: { use_bias: [false], param_dtype: [bf16], in_features: [[3, 5]] } },
    { layer: 'Einsum', source: 'flax/nnx/nn/linear.py', args: ['ab,bc->ac', [8, 16]], vary: { bias_shape: [[16]], param_dtype: [bf16], dtype: [bf16], kernel_shape: [[4, 5]] } },
    { layer: 'Embed', source: 'flax/nnx/nn/linear.py', args: [100, 16], vary: { param_dtype: [bf16], dtype: [bf16], features: [4], num_embeddings: [7] } },
    { layer: 'Conv', source: 'flax/nnx/nn/linear.py', args: [4, 8, [3, 3]], vary: { use_bias: [false], feature_group_count: [2, 4], param_dtype: [bf16], dtype: [bf16], kernel_size: [[5, 1], 3] } },
    { layer: 'ConvTranspose', source: 'flax/nnx/nn/linear.py', args: [4, 6, [3, 3]], vary: { use_bias: [false], param_dtype: [bf16], transpose_kernel: [true], kernel_size: [[2, 5]] } },
    { layer: 'BatchNorm', source: 'flax/nnx/nn/normalization.py', args: [10], vary: { use_bias: [false], use_scale: [false], param_dtype: [bf16], dtype: [bf16] } },
    { layer: 'LayerNorm', source: 'flax/nnx/nn/normalization.py', args: [16], vary: { use_bias: [false], use_scale: [false], param_dtype: [bf16], dtype: [bf16] } },
    { layer: 'RMSNorm', source: 'flax/nnx/nn/normalization.py', args: [16], vary: { use_scale: [false], param_dtype: [bf16], dtype: [bf16] } },
    { layer: 'GroupNorm', source: 'flax/nnx/nn/normalization.py', args: [16], kwargs: { num_groups: 4 }, vary: { use_bias: [false], use_scale: [false], param_dtype: [bf16] } },
    { layer: 'InstanceNorm', source: 'flax/nnx/nn/normalization.py', args: [16], vary: { use_bias: [false], use_scale: [false], param_dtype: [f16] } },
    { layer: 'MultiHeadAttention', source: 'flax/nnx/nn/attention.py', args: [4, 16], kwargs: { decode: false }, vary: { qkv_features: [32], out_features: [8], in_kv_features: [12], use_bias: [false], normalize_qk: [true], param_dtype: [bf16], dtype: [bf16] } },
    { layer: 'Dropout', source: 'flax/nnx/nn/stochastic.py', args: [0.1], vary: {} },
    { layer: 'PReLU', source: 'flax/nnx/nn/activations.py', args: [], vary: { param_dtype: [bf16], dtype: [bf16] } },
  ],
};
