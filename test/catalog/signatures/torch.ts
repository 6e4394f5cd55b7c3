// torch.nn constructor arguments that change parameter / buffer shapes or
// dtypes, read from torch/nn/modules/*.py of torch 2.13.0 (the CPU wheel in
// the test environment). `device` never changes a shape; padding_idx, max_norm,
// sparse, nonlinearity, batch_first, dropout do not either and are left out.
import { bf16, f16, type SignatureTable } from './types';

export const TORCH_SIGNATURES: SignatureTable = {
  framework: 'torch',
  version: '2.13.0+cpu',
  rows: [
    { layer: 'Linear', source: 'torch/nn/modules/linear.py', args: [20, 30], vary: { bias: [false], dtype: [bf16, f16], out_features: [7] } },
    { layer: 'Bilinear', source: 'torch/nn/modules/linear.py', args: [5, 6, 7], vary: { bias: [false], dtype: [bf16] } },
    { layer: 'Embedding', source: 'torch/nn/modules/sparse.py', args: [100, 16], vary: { dtype: [bf16], embedding_dim: [3] } },
    { layer: 'EmbeddingBag', source: 'torch/nn/modules/sparse.py', args: [50, 8], vary: { dtype: [f16], mode: ['sum', 'max'] } },
    { layer: 'Conv1d', source: 'torch/nn/modules/conv.py', args: [4, 8, 3], vary: { groups: [2, 4], bias: [false], dtype: [bf16], kernel_size: [5] } },
    { layer: 'Conv2d', source: 'torch/nn/modules/conv.py', args: [4, 8, 3], vary: { groups: [2], bias: [false], dtype: [bf16], kernel_size: [[3, 5]] } },
    { layer: 'Conv3d', source: 'torch/nn/modules/conv.py', args: [2, 4, 3], vary: { groups: [2], bias: [false], dtype: [f16] } },
    { layer: 'ConvTranspose1d', source: 'torch/nn/modules/conv.py', args: [4, 6, 3], vary: { groups: [2], bias: [false], dtype: [bf16] } },
    { layer: 'ConvTranspose2d', source: 'torch/nn/modules/conv.py', args: [4, 6, 3], vary: { groups: [2], bias: [false], dtype: [bf16], kernel_size: [[2, 3]] } },
    { layer: 'ConvTranspose3d', source: 'torch/nn/modules/conv.py', args: [6, 9, 2], vary: { groups: [3], bias: [false], dtype: [bf16] } },
    { layer: 'LayerNorm', source: 'torch/nn/modules/normalization.py', args: [32], vary: { elementwise_affine: [false], bias: [false], dtype: [bf16], normalized_shape: [[4, 8]] } },
    { layer: 'RMSNorm', source: 'torch/nn/modules/normalization.py', args: [32], vary: { elementwise_affine: [false], dtype: [bf16], normalized_shape: [[4, 8]] } },
    { layer: 'GroupNorm', source: 'torch/nn/modules/normalization.py', args: [4, 16], vary: { affine: [false], dtype: [bf16] } },
    { layer: 'BatchNorm1d', source: 'torch/nn/modules/batchnorm.py', args: [10], vary: { affine: [false], track_running_stats: [false], dtype: [bf16] } },
    { layer: 'BatchNorm2d', source: 'torch/nn/modules/batchnorm.py', args: [10], vary: { affine: [false], track_running_stats: [false], dtype: [f16] } },
    { layer: 'BatchNorm3d', source: 'torch/nn/modules/batchnorm.py', args: [10], vary: { affine: [false], dtype: [bf16] } },
    { layer: 'InstanceNorm1d', source: 'torch/nn/modules/instancenorm.py', args: [6], vary: { affine: [true], track_running_stats: [true], dtype: [bf16] } },
    { layer: 'InstanceNorm2d', source: 'torch/nn/modules/instancenorm.py', args: [6], kwargs: { affine: true }, vary: { track_running_stats: [true], dtype: [bf16] } },
    { layer: 'PReLU', source: 'torch/nn/modules/activation.py', args: [], vary: { num_parameters: [12], dtype: [bf16] } },
    { layer: 'MultiheadAttention', source: 'torch/nn/modules/activation.py', args: [64, 8], vary: { bias: [false], add_bias_kv: [true], kdim: [32], vdim: [48], dtype: [bf16] } },
    { layer: 'RNN', source: 'torch/nn/modules/rnn.py', args: [10, 20], vary: { num_layers: [3], bias: [false], bidirectional: [true], dtype: [bf16] } },
    { layer: 'LSTM', source: 'torch/nn/modules/rnn.py', args: [10, 20], vary: { num_layers: [2], bias: [false], bidirectional: [true], proj_size: [5], dtype: [bf16] } },
    { layer: 'GRU', source: 'torch/nn/modules/rnn.py', args: [10, 20], vary: { num_layers: [2], bias: [false], bidirectional: [true], dtype: [f16] } },
    { layer: 'RNNCell', source: 'torch/nn/modules/rnn.py', args: [10, 20], vary: { bias: [false], dtype: [bf16] } },
    { layer: 'LSTMCell', source: 'torch/nn/modules/rnn.py', args: [10, 20], vary: { bias: [false], dtype: [bf16] } },
    { layer: 'GRUCell', source: 'torch/nn/modules/rnn.py', args: [10, 20], vary: { bias: [false], dtype: [bf16] } },
    { layer: 'TransformerEncoderLayer', source: 'torch/nn/modules/transformer.py', args: [64, 4], vary: { dim_feedforward: [128], bias: [false], dtype: [bf16] } },
    { layer: 'TransformerDecoderLayer', source: 'torch/nn/modules/transformer.py', args: [64, 4], vary: { dim_feedforward: [128], bias: [false], dtype: [bf16] } },
    { layer: 'Transformer', source: 'torch/nn/modules/transformer.py', args: [], kwargs: { d_model: 32, nhead: 4, num_encoder_layers: 2, num_decoder_layers: 1, dim_feedforward: 64 }, vary: { num_encoder_layers: [3], bias: [false], dtype: [bf16] } },
  ],
};
