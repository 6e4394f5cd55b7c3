"""Equinox module whose table is drawn with jax.random.normal and scaled
outside jit (65536 x 256 float32, 67.1 MB), plus an eqx.nn.Linear head.
Eagerly the sample and the scaled product are alive together: parameters so
far + 2 x 67.1 MB."""
import equinox as eqx
import jax


class Table(eqx.Module):
    weight: jax.Array
    head: eqx.nn.Linear

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.weight = jax.random.normal(k1, (65536, 256)) * 0.02
        self.head = eqx.nn.Linear(256, 64, key=k2)


model = Table(jax.random.PRNGKey(0))
print(model.weight.shape)
