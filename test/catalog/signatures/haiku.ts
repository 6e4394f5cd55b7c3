// haiku constructor arguments that change parameter shapes or dtypes, read
// from haiku/_src/{basic,embed,conv,layer_norm,group_norm,batch_norm,attention}.py
// of dm-haiku 0.0.17. Haiku has no dtype argument: parameters take the input's
// dtype (hk.get_parameter(..., dtype=inputs.dtype)), so `$input_dtype` is tried.
import { type SignatureTable } from './types';

export const HAIKU_SIGNATURES: SignatureTable = {
  framework: 'haiku',
  version: '0.0.17',
  rows: [
    { layer: 'Linear', source: 'haiku/_src/basic.py', args: [16], input: [2, 8], vary: { with_bias: [false], $input_dtype: ['bfloat16', 'float16'], output_size: [3] } },
    { layer: 'Embed', source: 'haiku/_src/embed.py', args: [100, 16], input: [2, 5], inputDtype: 'int32', vary: { embed_dim: [4] } },
    { layer: 'Conv1D', source: 'haiku/_src/conv.py', args: [8, 3], input: [1, 10, 4], vary: { with_bias: [false], feature_group_count: [2], $input_dtype: ['bfloat16'] } },
    { layer: 'Conv2D', source: 'haiku/_src/conv.py', args: [8, 3], input: [1, 8, 8, 4], vary: { with_bias: [false], feature_group_count: [4], kernel_shape: [[3, 5]], $input_dtype: ['bfloat16'] } },
    { layer: 'Conv2D', source: 'haiku/_src/conv.py', args: [8, 3], kwargs: { data_format: 'NCHW' }, input: [1, 4, 8, 8], vary: { with_bias: [false] } },
    { layer: 'LayerNorm', source: 'haiku/_src/layer_norm.py', args: [-1, true, true], input: [2, 5, 16], vary: { create_scale: [false], create_offset: [false], $input_dtype: ['bfloat16'] } },
    { layer: 'RMSNorm', source: 'haiku/_src/layer_norm.py', args: [-1], input: [2, 5, 16], vary: { create_scale: [false], $input_dtype: ['bfloat16'] } },
    { layer: 'GroupNorm', source: 'haiku/_src/group_norm.py', args: [4], input: [2, 4, 4, 16], vary: { create_scale: [false], create_offset: [false], $input_dtype: ['bfloat16'] } },
    { layer: 'BatchNorm', source: 'haiku/_src/batch_norm.py', args: [true, true, 0.9], input: [4, 10], state: true, vary: { create_scale: [false], create_offset: [false], $input_dtype: ['bfloat16'] } },
    { layer: 'MultiHeadAttention', source: 'haiku/_src/attention.py', args: [4, 8], kwargs: { w_init_scale: 1.0 }, input: [2, 5, 16], inputs: 3, vary: { with_bias: [false], value_size: [6], model_size: [12], $input_dtype: ['bfloat16'] } },
  ],
};
