"""Plain-JAX params tree (no framework Module) built by an init function
outside jit: four 256 x 1024 layers (lecun_normal, zeros bias), then a
65536 x 256 float32 table (67.1 MB) from jax.nn.initializers.normal(0.02).
Each initializer is the jitted sampler, then an eager multiply by the scale
(jax/_src/nn/initializers.py): the sample and the scaled copy are alive
together, so the init peak is the layers + 2 x the table."""
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


params = init_params(jax.random.PRNGKey(0), 65536, 256, 4)
print(jax.tree_util.tree_map(jnp.shape, params))
