"""A ~1B-parameter decoder LLM in Equinox whose layers are created by
eqx.filter_vmap over split keys and applied with jax.lax.scan. Each layer is
built directly in bfloat16 (the `dtype=` argument, equinox >= 0.11.4) and the
whole constructor runs under eqx.filter_jit, so no float32 copy of the
stacked weights is ever materialised.

Parameter count (vocab 32,000, dim 2,048, 16 layers, 16 heads, SwiGLU
hidden 5,632, no biases, RMSNorm with a weight only):
  per layer: attention q/k/v/o 4*2048*2048 = 16,777,216;
    gate/up/down 3*2048*5632 = 34,603,008; two RMSNorm weights 2*2048 = 4,096;
    layer total 51,384,320; x16 = 822,149,120
  embedding 32,000*2,048 = 65,536,000; final RMSNorm 2,048;
  lm_head 2048*32000 = 65,536,000
  total 822,149,120+65,536,000+2,048+65,536,000 = 953,223,168
"""
from dataclasses import dataclass

import equinox as eqx
import jax
import jax.numpy as jnp


@dataclass(frozen=True)
class LLMConfig:
    vocab_size: int = 32000
    dim: int = 2048
    n_layers: int = 16
    n_heads: int = 16
    hidden_dim: int = 5632
    dtype: jnp.dtype = jnp.bfloat16


class RMSNorm(eqx.Module):
    weight: jax.Array
    eps: float = eqx.field(static=True)

    def __init__(self, dim, eps=1e-5, dtype=jnp.float32):
        self.weight = jnp.ones((dim,), dtype=dtype)
        self.eps = eps

    def __call__(self, x):
        x32 = x.astype(jnp.float32)
        y = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, axis=-1, keepdims=True) + self.eps)
        return (y * self.weight).astype(x.dtype)


class Block(eqx.Module):
    attn_norm: RMSNorm
    wq: eqx.nn.Linear
    wk: eqx.nn.Linear
    wv: eqx.nn.Linear
    wo: eqx.nn.Linear
    mlp_norm: RMSNorm
    gate: eqx.nn.Linear
    up: eqx.nn.Linear
    down: eqx.nn.Linear
    n_heads: int = eqx.field(static=True)

    def __init__(self, cfg: LLMConfig, *, key):
        kq, kk, kv, ko, kg, ku, kd = jax.random.split(key, 7)
        lin = lambda i, o, k: eqx.nn.Linear(i, o, use_bias=False, dtype=cfg.dtype, key=k)
        self.n_heads = cfg.n_heads
        self.attn_norm = RMSNorm(cfg.dim, dtype=cfg.dtype)
        self.wq = lin(cfg.dim, cfg.dim, kq)
        self.wk = lin(cfg.dim, cfg.dim, kk)
        self.wv = lin(cfg.dim, cfg.dim, kv)
        self.wo = lin(cfg.dim, cfg.dim, ko)
        self.mlp_norm = RMSNorm(cfg.dim, dtype=cfg.dtype)
        self.gate = lin(cfg.dim, cfg.hidden_dim, kg)
        self.up = lin(cfg.dim, cfg.hidden_dim, ku)
        self.down = lin(cfg.hidden_dim, cfg.dim, kd)

    def __call__(self, x):
        seq, dim = x.shape
        h = jax.vmap(self.attn_norm)(x)
        q = jax.vmap(self.wq)(h).reshape(seq, self.n_heads, -1)
        k = jax.vmap(self.wk)(h).reshape(seq, self.n_heads, -1)
        v = jax.vmap(self.wv)(h).reshape(seq, self.n_heads, -1)
        a = jax.nn.dot_product_attention(q, k, v, is_causal=True).reshape(seq, dim)
        x = x + jax.vmap(self.wo)(a)
        h = jax.vmap(self.mlp_norm)(x)
        return x + jax.vmap(self.down)(jax.nn.silu(jax.vmap(self.gate)(h)) * jax.vmap(self.up)(h))


class LLM(eqx.Module):
    embed: eqx.nn.Embedding
    blocks: Block
    norm: RMSNorm
    lm_head: eqx.nn.Linear

    def __init__(self, cfg: LLMConfig, *, key):
        k_embed, k_blocks, k_head = jax.random.split(key, 3)
        self.embed = eqx.nn.Embedding(cfg.vocab_size, cfg.dim, dtype=cfg.dtype, key=k_embed)
        make_blocks = eqx.filter_vmap(lambda k: Block(cfg, key=k))
        self.blocks = make_blocks(jax.random.split(k_blocks, cfg.n_layers))
        self.norm = RMSNorm(cfg.dim, dtype=cfg.dtype)
        self.lm_head = eqx.nn.Linear(cfg.dim, cfg.vocab_size, use_bias=False, dtype=cfg.dtype, key=k_head)

    def __call__(self, tokens):
        x = jax.vmap(self.embed)(tokens)
        dynamic, static = eqx.partition(self.blocks, eqx.is_array)

        def step(h, layer_params):
            return eqx.combine(layer_params, static)(h), None

        x, _ = jax.lax.scan(step, x, dynamic)
        return jax.vmap(self.lm_head)(jax.vmap(self.norm)(x))


@eqx.filter_jit
def make_model(cfg, key):
    return LLM(cfg, key=key)


if __name__ == "__main__":
    cfg = LLMConfig()
    model = make_model(cfg, jax.random.PRNGKey(0))
    logits = eqx.filter_jit(model)(jnp.zeros((512,), jnp.int32))
