"""An output projection of 65536 -> 131072, sharded over a 4-GPU mesh,
initialised under jit with out_shardings on jax 0.4.28."""
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh

D_IN = 65536
D_OUT = 131072


class Projection(nn.Module):
    out_dim: int = D_OUT

    @nn.compact
    def __call__(self, h):
        init = nn.with_partitioning(nn.initializers.xavier_uniform(), ("data", None))
        return nn.Dense(self.out_dim, use_bias=False, kernel_init=init)(h)


def init_params(key):
    mesh = Mesh(np.array(jax.devices()).reshape(4), ("data",))
    model = Projection()
    h = jnp.zeros((2, D_IN), jnp.float32)
    shapes = jax.eval_shape(model.init, key, h)
    return jax.jit(model.init, out_shardings=nn.get_sharding(shapes, mesh))(key, h)


if __name__ == "__main__":
    params = init_params(jax.random.PRNGKey(1))
