# truth-harness: XLA_FLAGS=--xla_force_host_platform_device_count=8
"""A Flax linen MLP whose parameters are created sharded over 8 devices.

Each kernel is annotated with its partitioning (the first split along its
output axis, the second along its input axis, Megatron style) and init is
jitted with the shardings flax derives from those annotations. Threefry is
set back to its original, non-partitionable implementation (the default
before jax 0.5.0), as older code bases pin it.
"""
import flax.linen as nn
import jax
import jax.numpy as jnp

jax.config.update("jax_threefry_partitionable", False)

D_MODEL = 1024
D_FF = 8192


class ShardedMLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        h = nn.Dense(D_FF, use_bias=False,
                     kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), (None, "model")))(x)
        h = nn.gelu(h)
        return nn.Dense(D_MODEL, use_bias=False,
                        kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), ("model", None)))(h)


def create_params(rng):
    mesh = jax.make_mesh((8,), ("model",))
    model = ShardedMLP()
    x = jnp.ones((8, D_MODEL), jnp.float32)
    abstract = jax.eval_shape(model.init, rng, x)
    shardings = nn.get_sharding(abstract, mesh)
    return jax.jit(model.init, out_shardings=shardings)(rng, x)


if __name__ == "__main__":
    params = create_params(jax.random.PRNGKey(0))
    print(jax.tree_util.tree_map(lambda a: (a.shape, a.sharding.shard_shape(a.shape)), params))
