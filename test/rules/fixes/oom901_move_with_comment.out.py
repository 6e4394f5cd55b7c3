# oomlens-test: device=t4 fix=OOM901
import os

# Leave the rest of the card to the data-loading process.
os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
import equinox as eqx
import jax
import jax.numpy as jnp

model = eqx.nn.MLP(2, 1, 1024, 10, key=jax.random.PRNGKey(0))

ys = jax.vmap(model)(jnp.zeros((1024, 2)))
