# oomlens-test: device=a100-40gb fix=OOM104 unsafe
# A plain-JAX params tree (no framework Module) built by an init function outside jit.
# Eagerly each jax.nn.initializers call is the jitted sampler's output, then an eager multiply by the
# scale: the sample and the scaled copy are alive together until the initializer returns
# (jax/_src/nn/initializers.py, jax 0.10.2: `random.normal(key, shape, dtype) * jnp.array(stddev, dtype)`).
#   layers: 4 × (2048 × 8192 × 4 B + 8192 × 4 B) =   268,566,528 B
#   embed: 1,000,000 × 2048 × 4 B              = 8,192,000,000 B
#   parameters                                  = 8,460,566,528 B
#   eager peak, at the embed multiply: layers + sample + scaled copy
#     = 268,566,528 + 8,192,000,000 + 8,192,000,000 = 16,652,566,528 B
#   under jax.jit only the outputs: 8,460,566,528 B (lower by the whole 8.19 GB table, the largest parameter)
import jax
import jax.numpy as jnp


def init_params(key, vocab, dim, n_layers):
    k_embed, *k_layers = jax.random.split(key, n_layers + 1)
    layers = []
    for k in k_layers:
        w = jax.nn.initializers.lecun_normal()(k, (dim, 4 * dim))
        layers.append({"w": w, "b": jnp.zeros((4 * dim,))})
    embed = jax.nn.initializers.normal(0.02)(k_embed, (vocab, dim))
    return {"layers": layers, "embed": embed}


params = jax.jit(init_params, static_argnums=(1, 2, 3))(jax.random.PRNGKey(0), 1_000_000, 2048, 4)
print(jax.tree_util.tree_map(jnp.shape, params))
