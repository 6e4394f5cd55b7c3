"""Equinox MLP (512 -> 2048 -> 2048 -> 512) initialised eagerly, then a
jitted optax Adam train step (eqx.filter_jit, filter_value_and_grad), batch 64."""
import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class MLP(eqx.Module):
    layers: list

    def __init__(self, key):
        k1, k2, k3 = jax.random.split(key, 3)
        self.layers = [eqx.nn.Linear(512, 2048, key=k1), eqx.nn.Linear(2048, 2048, key=k2),
                       eqx.nn.Linear(2048, 512, key=k3)]

    def __call__(self, x):
        for layer in self.layers[:-1]:
            x = jax.nn.relu(layer(x))
        return self.layers[-1](x)


model = MLP(jax.random.PRNGKey(0))
optim = optax.adam(1e-3)
opt_state = optim.init(eqx.filter(model, eqx.is_array))


@eqx.filter_jit
def train_step(model, opt_state, x, y):
    def loss_fn(model):
        pred = jax.vmap(model)(x)
        return jnp.mean((pred - y) ** 2)

    loss, grads = eqx.filter_value_and_grad(loss_fn)(model)
    updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    model = eqx.apply_updates(model, updates)
    return model, opt_state, loss


x = jnp.ones((64, 512))
y = jnp.zeros((64, 512))
for step in range(2):
    model, opt_state, loss = train_step(model, opt_state, x, y)
print(loss)
