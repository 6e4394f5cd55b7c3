# oomlens-test: device=8xh100-80gb versions=jax==0.4.30 fix=OOM103 unsafe
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh


class Proj(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(262144, use_bias=False, kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), (None, "model")))(x)


mesh = Mesh(np.array(jax.devices()).reshape(8), ("model",))
model = Proj()
x = jnp.ones((1, 32768))
params = jax.jit(model.init, out_shardings=nn.get_sharding(jax.eval_shape(model.init, jax.random.PRNGKey(0), x), mesh))(jax.random.PRNGKey(0), x)
