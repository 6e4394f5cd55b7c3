"""Haiku MLP (512 -> 2048 -> 2048 -> 512) initialised eagerly with
hk.transform's init, then a jitted optax Adam train step, batch 64."""
import haiku as hk
import jax
import jax.numpy as jnp
import optax


def forward(x):
    mlp = hk.Sequential([hk.Linear(2048), jax.nn.relu, hk.Linear(2048), jax.nn.relu, hk.Linear(512)])
    return mlp(x)


net = hk.without_apply_rng(hk.transform(forward))
x = jnp.ones((64, 512))
y = jnp.zeros((64, 512))
params = net.init(jax.random.PRNGKey(0), x)
tx = optax.adam(1e-3)
opt_state = tx.init(params)


@jax.jit
def train_step(params, opt_state, x, y):
    def loss_fn(params):
        return jnp.mean((net.apply(params, x) - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


for step in range(2):
    params, opt_state, loss = train_step(params, opt_state, x, y)
print(loss)
