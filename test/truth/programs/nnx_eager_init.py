"""Flax NNX MLP (512 -> 2048 -> 2048 -> 512) built eagerly, then a jitted
train step (nnx.jit, nnx.value_and_grad) with nnx.Optimizer over optax Adam, batch 64."""
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.l1 = nnx.Linear(512, 2048, rngs=rngs)
        self.l2 = nnx.Linear(2048, 2048, rngs=rngs)
        self.l3 = nnx.Linear(2048, 512, rngs=rngs)

    def __call__(self, x):
        x = jax.nn.relu(self.l1(x))
        x = jax.nn.relu(self.l2(x))
        return self.l3(x)


model = MLP(nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


x = jnp.ones((64, 512))
y = jnp.zeros((64, 512))
for step in range(2):
    loss = train_step(model, optimizer, x, y)
print(loss)
