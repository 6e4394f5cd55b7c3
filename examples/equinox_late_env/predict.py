"""A small Equinox MLP; the preallocation setting comes after the first JAX
operation and is therefore ignored."""
import os

import equinox as eqx
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(42)
net = eqx.nn.MLP(in_size=16, out_size=4, width_size=512, depth=4, key=key)

os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"

batch = jnp.ones((256, 16))
logits = jax.vmap(net)(batch)
