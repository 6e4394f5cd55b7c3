"""BERT-tiny (L=2, H=128, A=2) in the style of the Equinox BERT example:
EmbedderBlock / AttentionBlock / FeedForwardBlock / TransformerLayer modules,
eqx.nn.MultiheadAttention with all four biases switched on, and a config dict.

Parameter count (published size of google/bert_uncased_L-2_H-128_A-2 with
pooler, 4.4M; exact arithmetic):
  embeddings: token 30,522*128 = 3,906,816; segment 2*128 = 256;
    position 512*128 = 65,536; LayerNorm 256; total 3,972,864
  per layer: attention q/k/v/o 4*(128*128+128) = 66,048; LayerNorm 256;
    ff 128*512+512 = 66,048; 512*128+128 = 65,664; LayerNorm 256;
    layer total 198,272; x2 = 396,544
  pooler 128*128+128 = 16,512
  total 3,972,864+396,544+16,512 = 4,385,920
"""
import equinox as eqx
import jax
import jax.numpy as jnp

BERT_TINY = {
    "vocab_size": 30522,
    "max_length": 512,
    "type_vocab_size": 2,
    "embedding_size": 128,
    "hidden_size": 128,
    "intermediate_size": 512,
    "num_layers": 2,
    "num_heads": 2,
    "dropout_rate": 0.1,
}


class EmbedderBlock(eqx.Module):
    token_embedder: eqx.nn.Embedding
    segment_embedder: eqx.nn.Embedding
    position_embedder: eqx.nn.Embedding
    layernorm: eqx.nn.LayerNorm
    dropout: eqx.nn.Dropout

    def __init__(self, vocab_size, max_length, type_vocab_size, embedding_size, hidden_size, dropout_rate, key):
        token_key, segment_key, position_key = jax.random.split(key, 3)
        self.token_embedder = eqx.nn.Embedding(num_embeddings=vocab_size, embedding_size=embedding_size, key=token_key)
        self.segment_embedder = eqx.nn.Embedding(num_embeddings=type_vocab_size, embedding_size=embedding_size, key=segment_key)
        self.position_embedder = eqx.nn.Embedding(num_embeddings=max_length, embedding_size=embedding_size, key=position_key)
        self.layernorm = eqx.nn.LayerNorm(shape=hidden_size)
        self.dropout = eqx.nn.Dropout(dropout_rate)

    def __call__(self, token_ids, position_ids, segment_ids):
        e = jax.vmap(self.token_embedder)(token_ids) + jax.vmap(self.segment_embedder)(segment_ids)
        e = e + jax.vmap(self.position_embedder)(position_ids)
        return jax.vmap(self.layernorm)(e)


class FeedForwardBlock(eqx.Module):
    mlp: eqx.nn.Linear
    output: eqx.nn.Linear
    layernorm: eqx.nn.LayerNorm

    def __init__(self, hidden_size, intermediate_size, key):
        mlp_key, output_key = jax.random.split(key)
        self.mlp = eqx.nn.Linear(in_features=hidden_size, out_features=intermediate_size, key=mlp_key)
        self.output = eqx.nn.Linear(in_features=intermediate_size, out_features=hidden_size, key=output_key)
        self.layernorm = eqx.nn.LayerNorm(shape=hidden_size)

    def __call__(self, inputs):
        h = self.output(jax.nn.gelu(self.mlp(inputs)))
        return self.layernorm(h + inputs)


class AttentionBlock(eqx.Module):
    attention: eqx.nn.MultiheadAttention
    layernorm: eqx.nn.LayerNorm
    num_heads: int = eqx.field(static=True)

    def __init__(self, hidden_size, num_heads, key):
        self.num_heads = num_heads
        self.attention = eqx.nn.MultiheadAttention(
            num_heads=num_heads,
            query_size=hidden_size,
            use_query_bias=True,
            use_key_bias=True,
            use_value_bias=True,
            use_output_bias=True,
            key=key,
        )
        self.layernorm = eqx.nn.LayerNorm(shape=hidden_size)

    def __call__(self, inputs):
        return jax.vmap(self.layernorm)(self.attention(inputs, inputs, inputs) + inputs)


class TransformerLayer(eqx.Module):
    attention_block: AttentionBlock
    ff_block: FeedForwardBlock

    def __init__(self, hidden_size, intermediate_size, num_heads, key):
        attention_key, ff_key = jax.random.split(key)
        self.attention_block = AttentionBlock(hidden_size, num_heads, attention_key)
        self.ff_block = FeedForwardBlock(hidden_size, intermediate_size, ff_key)

    def __call__(self, inputs):
        return jax.vmap(self.ff_block)(self.attention_block(inputs))


class Encoder(eqx.Module):
    embedder_block: EmbedderBlock
    layers: list
    pooler: eqx.nn.Linear

    def __init__(self, vocab_size, max_length, type_vocab_size, embedding_size, hidden_size, intermediate_size,
                 num_layers, num_heads, dropout_rate, key):
        embedder_key, layer_key, pooler_key = jax.random.split(key, num=3)
        self.embedder_block = EmbedderBlock(vocab_size, max_length, type_vocab_size, embedding_size, hidden_size,
                                            dropout_rate, embedder_key)
        layer_keys = jax.random.split(layer_key, num=num_layers)
        self.layers = []
        for layer_key in layer_keys:
            self.layers.append(TransformerLayer(hidden_size, intermediate_size, num_heads, layer_key))
        self.pooler = eqx.nn.Linear(in_features=hidden_size, out_features=hidden_size, key=pooler_key)

    def __call__(self, token_ids, position_ids, segment_ids):
        x = self.embedder_block(token_ids, position_ids, segment_ids)
        for layer in self.layers:
            x = layer(x)
        return x, jnp.tanh(self.pooler(x[0]))


if __name__ == "__main__":
    encoder = Encoder(**BERT_TINY, key=jax.random.PRNGKey(5678))
    ids = jnp.zeros((128,), jnp.int32)
    seq, pooled = encoder(ids, jnp.arange(128), ids)
