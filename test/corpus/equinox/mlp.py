"""An MNIST MLP in Equinox: a list of eqx.nn.Linear layers built in a loop
from one split key, as the Equinox "getting started" page builds its models.

Parameter count (Linear weight (out, in) + bias (out)):
  784*256+256 = 200,960; 256*256+256 = 65,792; 256*10+10 = 2,570;
  total 269,322.
"""
import equinox as eqx
import jax
import jax.numpy as jnp


class MLPClassifier(eqx.Module):
    layers: list

    def __init__(self, sizes=(784, 256, 256, 10), *, key):
        keys = jax.random.split(key, len(sizes) - 1)
        self.layers = [eqx.nn.Linear(i, o, key=k) for i, o, k in zip(sizes[:-1], sizes[1:], keys)]

    def __call__(self, x):
        for layer in self.layers[:-1]:
            x = jax.nn.relu(layer(x))
        return self.layers[-1](x)


if __name__ == "__main__":
    model = MLPClassifier(key=jax.random.PRNGKey(0))
    logits = jax.vmap(model)(jnp.ones((8, 784)))
