# oomlens-test: device=a100-80gb fix=OOM104 unsafe
import haiku as hk
import jax
import jax.numpy as jnp

N = 400


def forward(nodes):
    x = hk.Linear(128)(nodes)
    pair = x[:, None, :] * x[None, :, :]
    tri = jnp.sum(pair[:, None] * pair[None, :], axis=2)
    return hk.Linear(128)(tri)


model = hk.transform(forward)
params = model.init(jax.random.PRNGKey(0), jnp.zeros((N, 64)))
