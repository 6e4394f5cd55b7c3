// equinox.nn constructor arguments that change parameter shapes or dtypes,
// read from equinox/nn/{_linear,_embedding,_mlp,_conv,_normalisation,_attention,_rnn}.py
// of equinox 0.13.8. Layers that take `key=` get jax.random.PRNGKey(0).
import { bf16, f16, type SignatureTable } from './types';

export const EQUINOX_SIGNATURES: SignatureTable = {
  framework: 'equinox',
  version: '0.13.8',
  rows: [
    { layer: 'Linear', source: 'equinox/nn/_linear.py', args: [3, 5], vary: { use_bias: [false], dtype: [bf16, f16], in_features: ['scalar'], out_features: ['scalar'] } },
    { layer: 'Embedding', source: 'equinox/nn/_embedding.py', args: [100, 16], vary: { dtype: [bf16], embedding_size: [4] } },
    { layer: 'MLP', source: 'equinox/nn/_mlp.py', args: [2, 3, 16, 2], vary: { use_bias: [false], use_final_bias: [false], depth: [0, 4], dtype: [bf16], width_size: [8] } },
    { layer: 'Conv1d', source: 'equinox/nn/_conv.py', args: [4, 8, 3], vary: { groups: [2, 4], use_bias: [false], dtype: [bf16], kernel_size: [5] } },
    { layer: 'Conv2d', source: 'equinox/nn/_conv.py', args: [4, 8, 3], vary: { groups: [2], use_bias: [false], dtype: [bf16], kernel_size: [[3, 5]] } },
    { layer: 'Conv3d', source: 'equinox/nn/_conv.py', args: [2, 4, 3], vary: { use_bias: [false], dtype: [bf16] } },
    { layer: 'ConvTranspose2d', source: 'equinox/nn/_conv.py', args: [4, 6, 3], vary: { groups: [2], use_bias: [false], dtype: [bf16] } },
    { layer: 'LayerNorm', source: 'equinox/nn/_normalisation.py', args: [16], vary: { use_weight: [false], use_bias: [false], elementwise_affine: [false], dtype: [bf16], shape: [[4, 8]] } },
    { layer: 'RMSNorm', source: 'equinox/nn/_normalisation.py', args: [16], vary: { use_weight: [false], use_bias: [false], dtype: [bf16] } },
    { layer: 'GroupNorm', source: 'equinox/nn/_normalisation.py', args: [4, 16], vary: { channelwise_affine: [false], dtype: [bf16] } },
    { layer: 'MultiheadAttention', source: 'equinox/nn/_attention.py', args: [4, 16], vary: { key_size: [8], value_size: [12], output_size: [6], qk_size: [2], vo_size: [3], use_query_bias: [true], use_key_bias: [true], use_value_bias: [true], use_output_bias: [true], dtype: [bf16] } },
    { layer: 'GRUCell', source: 'equinox/nn/_rnn.py', args: [10, 20], vary: { use_bias: [false], dtype: [bf16] } },
    { layer: 'LSTMCell', source: 'equinox/nn/_rnn.py', args: [10, 20], vary: { use_bias: [false], dtype: [bf16] } },
    { layer: 'PReLU', source: 'equinox/nn/_activations.py', args: [], vary: {} },
  ],
};
