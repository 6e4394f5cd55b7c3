"""Outer-product features over N residues in Haiku, initialised eagerly."""
import haiku as hk
import jax
import jax.numpy as jnp

N_RES = 320
C_IN = 32
C_PAIR = 96


def pair_stack(x):
    a = hk.Linear(C_PAIR, name="a")(x)
    b = hk.Linear(C_PAIR, name="b")(x)
    outer = a[:, None, :] * b[None, :, :]
    tri = jax.nn.relu(outer[:, :, None, :] * outer[None, :, :, :])
    reduced = jnp.mean(tri, axis=1)
    return hk.LayerNorm(axis=-1, create_scale=True, create_offset=True)(hk.Linear(C_PAIR, name="proj")(reduced))


net = hk.without_apply_rng(hk.transform(pair_stack))

if __name__ == "__main__":
    x = jnp.ones((N_RES, C_IN))
    params = net.init(jax.random.PRNGKey(0), x)
