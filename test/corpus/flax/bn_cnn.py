"""A CIFAR-10 CNN with BatchNorm and Dropout in Flax linen, with the
`train` flag threaded through and separate `params` / `dropout` rngs, the
way the Flax "BatchNorm" and "Dropout" guides write it.

Parameter count (input 32x32x3, convs with bias, padding SAME):
  conv1 3*3*3*32+32 = 896;  bn1 scale+bias 2*32 = 64
  conv2 3*3*32*64+64 = 18,496;  bn2 2*64 = 128
  global average pool -> 64 features; head Dense 64*10+10 = 650
  total 896+64+18,496+128+650 = 20,234 parameters;
  batch_stats: mean+var 2*32 + 2*64 = 192.
"""
import flax.linen as nn
import jax
import jax.numpy as jnp


class ConvBN(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x, train: bool):
        x = nn.Conv(self.features, (3, 3), padding="SAME")(x)
        x = nn.BatchNorm(use_running_average=not train, momentum=0.9)(x)
        return nn.relu(x)


class BNCNN(nn.Module):
    widths: tuple = (32, 64)
    num_classes: int = 10
    dropout_rate: float = 0.2

    @nn.compact
    def __call__(self, x, train: bool = False):
        for w in self.widths:
            x = ConvBN(w)(x, train)
        x = jnp.mean(x, axis=(1, 2))
        x = nn.Dropout(self.dropout_rate, deterministic=not train)(x)
        return nn.Dense(self.num_classes)(x)


if __name__ == "__main__":
    params_key, dropout_key = jax.random.split(jax.random.PRNGKey(0))
    model = BNCNN()
    variables = model.init({"params": params_key, "dropout": dropout_key}, jnp.ones((4, 32, 32, 3)), train=False)
    params, batch_stats = variables["params"], variables["batch_stats"]
