"""A Llama-2-13B-shaped decoder in Equinox whose blocks are built by vmapping
the block constructor in float32 and casting afterwards."""
import equinox as eqx
import jax
import jax.numpy as jnp


class Config:
    dim = 5120
    n_layers = 40
    n_heads = 40
    ffn_dim = 13824
    vocab = 32000


def cast_half(tree):
    return jax.tree_util.tree_map(lambda a: a.astype(jnp.bfloat16) if eqx.is_inexact_array(a) else a, tree)


class Block(eqx.Module):
    q: eqx.nn.Linear
    k: eqx.nn.Linear
    v: eqx.nn.Linear
    o: eqx.nn.Linear
    up: eqx.nn.Linear
    gate: eqx.nn.Linear
    down: eqx.nn.Linear
    norm1: eqx.nn.RMSNorm
    norm2: eqx.nn.RMSNorm

    def __init__(self, cfg, key):
        keys = jax.random.split(key, 7)
        self.q = eqx.nn.Linear(cfg.dim, cfg.dim, use_bias=False, key=keys[0])
        self.k = eqx.nn.Linear(cfg.dim, cfg.dim, use_bias=False, key=keys[1])
        self.v = eqx.nn.Linear(cfg.dim, cfg.dim, use_bias=False, key=keys[2])
        self.o = eqx.nn.Linear(cfg.dim, cfg.dim, use_bias=False, key=keys[3])
        self.up = eqx.nn.Linear(cfg.dim, cfg.ffn_dim, use_bias=False, key=keys[4])
        self.gate = eqx.nn.Linear(cfg.dim, cfg.ffn_dim, use_bias=False, key=keys[5])
        self.down = eqx.nn.Linear(cfg.ffn_dim, cfg.dim, use_bias=False, key=keys[6])
        self.norm1 = eqx.nn.RMSNorm(cfg.dim)
        self.norm2 = eqx.nn.RMSNorm(cfg.dim)


class Llama(eqx.Module):
    embed: eqx.nn.Embedding
    blocks: Block
    head: eqx.nn.Linear

    def __init__(self, cfg, key):
        k1, k2, k3 = jax.random.split(key, 3)
        self.embed = eqx.nn.Embedding(cfg.vocab, cfg.dim, key=k1)
        self.blocks = eqx.filter_vmap(lambda k: Block(cfg, k))(jax.random.split(k2, cfg.n_layers))
        self.blocks = cast_half(self.blocks)
        self.head = eqx.nn.Linear(cfg.dim, cfg.vocab, use_bias=False, key=k3)


if __name__ == "__main__":
    model = Llama(Config(), jax.random.PRNGKey(0))
