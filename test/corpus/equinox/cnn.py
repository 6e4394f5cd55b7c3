"""The MNIST CNN of the Equinox "CNN on MNIST" tutorial style: a list of
layers and plain functions applied in order.

Parameter count: Conv2d(1, 3, kernel 4) weight 3*1*4*4 = 48 + bias 3 = 51;
28x28 -> conv (no padding) 25x25 -> MaxPool2d(kernel 2, stride 1) 24x24,
3*24*24 = 1,728 features; Linear 1728*512+512 = 885,248;
Linear 512*64+64 = 32,832; Linear 64*10+10 = 650;
total 51+885,248+32,832+650 = 918,781.
"""
import equinox as eqx
import jax
import jax.numpy as jnp


class CNN(eqx.Module):
    layers: list

    def __init__(self, key):
        key1, key2, key3, key4 = jax.random.split(key, 4)
        self.layers = [
            eqx.nn.Conv2d(1, 3, kernel_size=4, key=key1),
            eqx.nn.MaxPool2d(kernel_size=2),
            jax.nn.relu,
            jnp.ravel,
            eqx.nn.Linear(1728, 512, key=key2),
            jax.nn.sigmoid,
            eqx.nn.Linear(512, 64, key=key3),
            jax.nn.relu,
            eqx.nn.Linear(64, 10, key=key4),
            jax.nn.log_softmax,
        ]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


if __name__ == "__main__":
    model = CNN(key=jax.random.PRNGKey(0))
    out = jax.vmap(model)(jnp.ones((8, 1, 28, 28)))
