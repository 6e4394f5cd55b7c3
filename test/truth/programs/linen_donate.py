"""Flax linen MLP (512 -> 2048 -> 2048 -> 512), then an optax Adam train step
compiled with jax.jit(..., donate_argnums=(0, 1)): the new parameters and
optimizer state reuse the donated buffers, batch 64."""
import flax.linen as nn
import jax
import jax.numpy as jnp
import optax


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(2048)(x))
        x = nn.relu(nn.Dense(2048)(x))
        return nn.Dense(512)(x)


model = MLP()
x = jnp.ones((64, 512))
y = jnp.zeros((64, 512))
params = model.init(jax.random.PRNGKey(0), x)
tx = optax.adam(1e-3)
opt_state = tx.init(params)


def train_step(params, opt_state, x, y):
    def loss_fn(params):
        return jnp.mean((model.apply(params, x) - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


step_fn = jax.jit(train_step, donate_argnums=(0, 1))
for step in range(2):
    params, opt_state, loss = step_fn(params, opt_state, x, y)
print(loss)
