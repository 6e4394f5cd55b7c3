# oomlens-test: device=a100-80gb fix=OOM401 unsafe
import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class Block(eqx.Module):
    attn: eqx.nn.MultiheadAttention
    mlp: eqx.nn.MLP

    def __init__(self, dim, heads, key):
        k1, k2 = jax.random.split(key)
        self.attn = eqx.nn.MultiheadAttention(heads, dim, key=k1)
        self.mlp = eqx.nn.MLP(dim, dim, 4 * dim, 1, key=k2)


class LM(eqx.Module):
    embed: eqx.nn.Embedding
    blocks: list
    n_head: int = eqx.field(static=True)

    def __init__(self, key):
        keys = jax.random.split(key, 3)
        self.embed = eqx.nn.Embedding(1000, 256, key=keys[0])
        self.blocks = [Block(256, 4, k) for k in keys[1:]]
        self.n_head = 4


def loss_fn(model, x):
    model = jax.tree_util.tree_map(lambda p: p.astype(jnp.bfloat16) if eqx.is_array(p) else p, model)
    return optax.softmax_cross_entropy_with_integer_labels(x, x).mean()


model = LM(jax.random.PRNGKey(0))
opt = optax.adamw(3e-4)
opt_state = opt.init(eqx.filter(model, eqx.is_array))
x = jnp.zeros((1, 16), dtype=jnp.int32)

for i in range(1000):
    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, x)
    updates, opt_state = opt.update(grads, opt_state, model)
    model = eqx.apply_updates(model, updates)
