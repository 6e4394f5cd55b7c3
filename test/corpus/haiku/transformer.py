"""A byte-level Transformer LM in the style of dm-haiku examples/transformer
(model.py + train.py): a Transformer hk.Module with pre-LayerNorm blocks of
hk.MultiHeadAttention and a dense block, wrapped by an embedding /
positional-embedding / unembedding function passed to hk.transform.

Parameter count (vocab 256, d_model 256, 4 heads x key_size 32, 6 layers,
widening factor 4, sequence length 128; hk.Linear and hk.MultiHeadAttention
projections carry biases; LayerNorm with scale and offset):
  token embedding hk.Embed(256, 256) = 65,536
  positional embedding (128, 256) = 32,768
  per layer: attention q/k/v 256->128 each 256*128+128 = 32,896 -> 98,688;
    output 128->256 = 128*256+256 = 33,024; attention total 131,712;
    two LayerNorms 2*(256+256) = 1,024;
    dense block 256->1024 = 263,168, 1024->256 = 262,400 -> 525,568;
    layer total 131,712+1,024+525,568 = 658,304; x6 = 3,949,824
  final LayerNorm 512; unembedding hk.Linear(256) 256*256+256 = 65,792
  total 65,536+32,768+3,949,824+512+65,792 = 4,114,432
"""
import dataclasses
from typing import Optional

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np

VOCAB_SIZE = 256
SEQ_LENGTH = 128


def layer_norm(x: jax.Array) -> jax.Array:
    return hk.LayerNorm(axis=-1, create_scale=True, create_offset=True)(x)


@dataclasses.dataclass
class Transformer(hk.Module):
    num_heads: int
    num_layers: int
    key_size: int
    dropout_rate: float
    widening_factor: int = 4
    name: Optional[str] = None

    def __call__(self, embeddings, *, is_training: bool = True):
        initializer = hk.initializers.VarianceScaling(2 / self.num_layers)
        _, seq_len, model_size = embeddings.shape
        causal_mask = np.tril(np.ones((1, 1, seq_len, seq_len)))
        h = embeddings
        for _ in range(self.num_layers):
            attn_block = hk.MultiHeadAttention(
                num_heads=self.num_heads, key_size=self.key_size, model_size=model_size, w_init=initializer
            )
            h_norm = layer_norm(h)
            h_attn = attn_block(h_norm, h_norm, h_norm, mask=causal_mask)
            if is_training:
                h_attn = hk.dropout(hk.next_rng_key(), self.dropout_rate, h_attn)
            h = h + h_attn
            dense_block = hk.Sequential([
                hk.Linear(self.widening_factor * model_size, w_init=initializer),
                jax.nn.gelu,
                hk.Linear(model_size, w_init=initializer),
            ])
            h_dense = dense_block(layer_norm(h))
            if is_training:
                h_dense = hk.dropout(hk.next_rng_key(), self.dropout_rate, h_dense)
            h = h + h_dense
        return layer_norm(h)


def forward(tokens, is_training=True):
    d_model = 256
    token_embedding_map = hk.Embed(VOCAB_SIZE, d_model, w_init=hk.initializers.TruncatedNormal(0.02))
    token_embs = token_embedding_map(tokens)
    positional_embeddings = hk.get_parameter(
        "positional_embeddings", [SEQ_LENGTH, d_model], init=hk.initializers.TruncatedNormal(0.02)
    )
    input_embeddings = token_embs + positional_embeddings[: tokens.shape[1]]
    transformer = Transformer(num_heads=4, num_layers=6, key_size=32, dropout_rate=0.1)
    embeddings = transformer(input_embeddings, is_training=is_training)
    return hk.Linear(VOCAB_SIZE)(embeddings)


if __name__ == "__main__":
    lm = hk.transform(forward)
    rng = jax.random.PRNGKey(0)
    params = jax.jit(lm.init)(rng, jnp.zeros((16, SEQ_LENGTH), jnp.int32))
