# truth-harness: XLA_FLAGS=--xla_force_host_platform_device_count=8
"""Plain JAX: an embedding table and a projection created sharded over 8 devices.

The parameters are a dict of arrays drawn with jax.random inside one jitted
function whose out_shardings give each leaf its own PartitionSpec: the
table split by rows, the projection by columns. Threefry is the original, non-partitionable
implementation (the default before jax 0.5.0).
"""
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

jax.config.update("jax_threefry_partitionable", False)

VOCAB = 32768
D_MODEL = 512


def init_params(key):
    k1, k2 = jax.random.split(key)
    return {
        "embed": jax.random.normal(k1, (VOCAB, D_MODEL), jnp.float32) * 0.02,
        "proj": jax.random.normal(k2, (D_MODEL, D_MODEL * 4), jnp.float32) * 0.02,
    }


if __name__ == "__main__":
    mesh = jax.make_mesh((8,), ("model",))
    shardings = {"embed": NamedSharding(mesh, P("model", None)), "proj": NamedSharding(mesh, P(None, "model"))}
    params = jax.jit(init_params, out_shardings=shardings)(jax.random.PRNGKey(0))
