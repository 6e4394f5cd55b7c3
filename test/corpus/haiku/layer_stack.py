"""A deep residual MLP in Haiku whose repeated blocks are built with
hk.layer_stack, so their parameters are stacked along a leading axis of
size NUM_LAYERS and applied with a scan.

Parameter count (hk.Linear with bias, LayerNorm with scale and offset):
  input projection 784*512+512 = 401,920
  per block: LayerNorm 512+512 = 1,024; 512*2048+2048 = 1,050,624;
    2048*512+512 = 1,049,088; block total 2,100,736
  12 stacked blocks 12*2,100,736 = 25,208,832
  output hk.Linear(10) 512*10+10 = 5,130
  total 401,920+25,208,832+5,130 = 25,615,882.
"""
import haiku as hk
import jax
import jax.numpy as jnp

NUM_LAYERS = 12
WIDTH = 512


def residual_block(x):
    h = hk.LayerNorm(axis=-1, create_scale=True, create_offset=True)(x)
    h = hk.Linear(4 * WIDTH)(h)
    h = jax.nn.gelu(h)
    h = hk.Linear(WIDTH)(h)
    return x + h


def model_fn(x):
    x = hk.Linear(WIDTH)(x)
    stack = hk.layer_stack(NUM_LAYERS)(residual_block)
    x = stack(x)
    return hk.Linear(10)(x)


if __name__ == "__main__":
    model = hk.without_apply_rng(hk.transform(model_fn))
    params = jax.jit(model.init)(jax.random.PRNGKey(0), jnp.ones((32, 784)))
    out = model.apply(params, jnp.ones((32, 784)))
