# oomlens-test: device=a100-40gb fix=OOM101 unsafe
import equinox as eqx
import jax
import jax.numpy as jnp
import jax.tree_util as jtu


def to_half(tree):
    return jtu.tree_map(lambda x: x.astype(jnp.float16) if eqx.is_inexact_array(x) else x, tree)


class Block(eqx.Module):
    up: eqx.nn.Linear
    down: eqx.nn.Linear

    def __init__(self, dim, key):
        k1, k2 = jax.random.split(key)
        self.up = eqx.nn.Linear(dim, 4 * dim, key=k1)
        self.down = eqx.nn.Linear(4 * dim, dim, key=k2)


class Net(eqx.Module):
    blocks: Block

    def __init__(self, key):
        make = lambda k: Block(4096, k)
        self.blocks = eqx.filter_jit(eqx.filter_vmap(lambda k: to_half(make(k))))(jax.random.split(key, 48))


net = Net(jax.random.PRNGKey(0))
