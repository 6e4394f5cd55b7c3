"""Two MNIST classifiers in Flax linen: the CNN from flax/examples/mnist
(train.py) and a compact MLP whose layer sizes come from a tuple field.

Parameter counts (kernel (in, out) + bias (out) per Dense; kernel
(kh, kw, cin, cout) + bias (cout) per Conv, padding SAME keeps 28x28):
  CNN: conv1 3*3*1*32+32 = 320; conv2 3*3*32*64+64 = 18,496;
       after two 2x2 avg pools the map is 7*7*64 = 3,136 features;
       dense1 3136*256+256 = 803,072; dense2 256*10+10 = 2,570;
       total 320+18,496+803,072+2,570 = 824,458.
  MLP: 784*512+512 = 401,920; 512*256+256 = 131,328; 256*10+10 = 2,570;
       total 535,818.
"""
from typing import Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp


class CNN(nn.Module):
    """A simple CNN model."""

    @nn.compact
    def __call__(self, x):
        x = nn.Conv(features=32, kernel_size=(3, 3))(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = nn.Conv(features=64, kernel_size=(3, 3))(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = x.reshape((x.shape[0], -1))
        x = nn.Dense(features=256)(x)
        x = nn.relu(x)
        x = nn.Dense(features=10)(x)
        return x


class MLP(nn.Module):
    features: Sequence[int] = (512, 256, 10)

    @nn.compact
    def __call__(self, x):
        x = x.reshape((x.shape[0], -1))
        for i, feat in enumerate(self.features):
            x = nn.Dense(feat, name=f"layers_{i}")(x)
            if i != len(self.features) - 1:
                x = nn.relu(x)
        return x


if __name__ == "__main__":
    rng = jax.random.PRNGKey(0)
    cnn_params = CNN().init(rng, jnp.ones([1, 28, 28, 1]))["params"]
    mlp_params = MLP().init(rng, jnp.ones((8, 784)))["params"]
    print(sum(x.size for x in jax.tree_util.tree_leaves(cnn_params)))
