"""A BatchNorm conv net in Haiku with hk.transform_with_state, an
`is_training` flag, and hk.Sequential for the classifier tail.

Parameter count (input 28x28x1; hk.Conv2D has a bias and pads SAME by
default; hk.BatchNorm with create_scale/create_offset has C scales + C offsets):
  conv1 3*3*1*32+32 = 320; bn1 2*32 = 64
  max pool 2x2 stride 2 VALID -> 14x14
  conv2 3*3*32*64+64 = 18,496; bn2 2*64 = 128
  max pool -> 7x7x64 = 3,136 features; linear 3136*10+10 = 31,370
  total 320+64+18,496+128+31,370 = 50,378.
"""
import haiku as hk
import jax
import jax.numpy as jnp


class ConvBlock(hk.Module):
    def __init__(self, channels, name=None):
        super().__init__(name=name)
        self.channels = channels

    def __call__(self, x, is_training):
        x = hk.Conv2D(output_channels=self.channels, kernel_shape=3)(x)
        x = hk.BatchNorm(create_scale=True, create_offset=True, decay_rate=0.9)(x, is_training)
        x = jax.nn.relu(x)
        return hk.max_pool(x, window_shape=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="VALID")


def net_fn(images, is_training):
    x = ConvBlock(32)(images, is_training)
    x = ConvBlock(64)(x, is_training)
    head = hk.Sequential([hk.Flatten(), hk.Linear(10)])
    return head(x)


if __name__ == "__main__":
    net = hk.transform_with_state(net_fn)
    init = jax.jit(net.init, static_argnames="is_training")
    params, state = init(jax.random.PRNGKey(0), jnp.ones((8, 28, 28, 1)), is_training=True)
