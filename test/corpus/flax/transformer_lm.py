"""A decoder-only Transformer LM in the style of flax/examples/lm1b/models.py:
a frozen struct.dataclass config shared by every submodule, learned position
embeddings, bias-free attention (lm1b passes use_bias=False), an MLP block
with biases, and a separate output Dense unless logits reuse the embedding.

Parameter count for TransformerConfig() below (vocab 30,000, emb 512,
8 heads x 64, mlp 2,048, 6 layers, max_len 256, logits_via_embedding=False):
  token embedding 30,000*512 = 15,360,000
  position embedding (1, 256, 512) = 131,072
  per layer: 2 LayerNorms 2*(512+512) = 2,048;
    attention q/k/v DenseGeneral 512->(8,64) no bias 3*262,144 = 786,432,
    out DenseGeneral (8,64)->512 no bias 262,144; attention 1,048,576;
    MLP Dense 512->2048 + bias = 1,050,624, Dense 2048->512 + bias = 1,049,088;
    layer total 2,048+1,048,576+2,099,712 = 3,150,336; x6 = 18,902,016
  final LayerNorm 1,024
  logits Dense 512->30,000 + bias = 15,390,000
  total 15,360,000+131,072+18,902,016+1,024+15,390,000 = 49,784,112
"""
from typing import Any, Callable, Optional

import jax
import jax.numpy as jnp
import numpy as np
from flax import linen as nn
from flax import struct


@struct.dataclass
class TransformerConfig:
    vocab_size: int = 30000
    output_vocab_size: int = 30000
    logits_via_embedding: bool = False
    dtype: Any = jnp.float32
    emb_dim: int = 512
    num_heads: int = 8
    num_layers: int = 6
    qkv_dim: int = 512
    mlp_dim: int = 2048
    max_len: int = 256
    dropout_rate: float = 0.1
    attention_dropout_rate: float = 0.1
    deterministic: bool = False
    kernel_init: Callable = nn.initializers.xavier_uniform()
    bias_init: Callable = nn.initializers.normal(stddev=1e-6)
    posemb_init: Optional[Callable] = nn.initializers.normal(stddev=0.02)


class AddPositionEmbs(nn.Module):
    config: TransformerConfig

    @nn.compact
    def __call__(self, inputs):
        cfg = self.config
        pos_embedding = self.param("pos_embedding", cfg.posemb_init, (1, cfg.max_len, inputs.shape[-1]))
        return inputs + pos_embedding[:, : inputs.shape[1], :]


class MlpBlock(nn.Module):
    config: TransformerConfig
    out_dim: Optional[int] = None

    @nn.compact
    def __call__(self, inputs):
        cfg = self.config
        actual_out_dim = inputs.shape[-1] if self.out_dim is None else self.out_dim
        x = nn.Dense(cfg.mlp_dim, dtype=cfg.dtype, kernel_init=cfg.kernel_init, bias_init=cfg.bias_init)(inputs)
        x = nn.relu(x)
        x = nn.Dropout(rate=cfg.dropout_rate)(x, deterministic=cfg.deterministic)
        return nn.Dense(actual_out_dim, dtype=cfg.dtype, kernel_init=cfg.kernel_init, bias_init=cfg.bias_init)(x)


class DecoderBlock(nn.Module):
    config: TransformerConfig

    @nn.compact
    def __call__(self, inputs, decoder_mask=None):
        cfg = self.config
        x = nn.LayerNorm(dtype=cfg.dtype)(inputs)
        x = nn.MultiHeadDotProductAttention(
            num_heads=cfg.num_heads,
            dtype=cfg.dtype,
            qkv_features=cfg.qkv_dim,
            kernel_init=cfg.kernel_init,
            bias_init=cfg.bias_init,
            use_bias=False,
            broadcast_dropout=False,
            dropout_rate=cfg.attention_dropout_rate,
            deterministic=cfg.deterministic,
        )(x, mask=decoder_mask)
        x = x + inputs
        z = nn.LayerNorm(dtype=cfg.dtype)(x)
        z = MlpBlock(config=cfg)(z)
        return x + z


class TransformerLM(nn.Module):
    config: TransformerConfig

    @nn.compact
    def __call__(self, inputs):
        cfg = self.config
        embed = nn.Embed(num_embeddings=cfg.vocab_size, features=cfg.emb_dim,
                         embedding_init=nn.initializers.normal(stddev=1.0))
        y = embed(inputs.astype("int32"))
        y = AddPositionEmbs(config=cfg, name="posembed_output")(y)
        mask = nn.make_causal_mask(inputs)
        for lyr in range(cfg.num_layers):
            y = DecoderBlock(config=cfg, name=f"encoderdecoderblock_{lyr}")(y, decoder_mask=mask)
        y = nn.LayerNorm(dtype=cfg.dtype, name="encoderdecoder_norm")(y)
        if cfg.logits_via_embedding:
            logits = embed.attend(y.astype(jnp.float32))
        else:
            logits = nn.Dense(cfg.output_vocab_size, dtype=cfg.dtype, kernel_init=cfg.kernel_init,
                              bias_init=cfg.bias_init, name="logitdense")(y)
        return logits


if __name__ == "__main__":
    config = TransformerConfig(deterministic=True)
    model = TransformerLM(config)
    init_fn = jax.jit(model.init)
    variables = init_fn(jax.random.PRNGKey(0), jnp.ones((2, config.max_len), jnp.int32))
    print(sum(np.prod(x.shape) for x in jax.tree_util.tree_leaves(variables["params"])))
