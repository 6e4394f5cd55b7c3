"""MNIST MLP in Haiku in the style of the dm-haiku README / examples/mnist.py:
hk.nets.MLP inside a function wrapped with hk.transform, then
hk.without_apply_rng; init under jax.jit with a concrete batch.

Parameter count (hk.Linear has a bias by default):
  784*300+300 = 235,500; 300*100+100 = 30,100; 100*10+10 = 1,010;
  total 266,610.
"""
import haiku as hk
import jax
import jax.numpy as jnp


def forward(images):
    x = hk.Flatten()(images)
    mlp = hk.nets.MLP([300, 100, 10])
    return mlp(x)


if __name__ == "__main__":
    net = hk.without_apply_rng(hk.transform(forward))
    params = jax.jit(net.init)(jax.random.PRNGKey(42), jnp.ones((8, 784)))
    logits = net.apply(params, jnp.ones((8, 784)))
