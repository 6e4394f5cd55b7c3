"""ResNet-18 in the style of flax/examples/imagenet/models.py: a ResNetBlock
with a 1x1 projection only when the residual shape changes, convolutions and
BatchNorm configured once through functools.partial, and stage sizes passed
to a generic ResNet through a partial factory.

Parameter count (same layer shapes as torchvision's resnet18, whose count is
11,689,512 per its model card): stem conv 7*7*3*64 = 9,408 + BN 2*64 = 128;
stage 1 (64 ch, 2 blocks, no projection): 2*(2*3*3*64*64 + 2*2*64) = 147,968;
stage 2 (128): block 1 3*3*64*128 + 3*3*128*128 + 2*2*128 + proj 64*128 + 2*128
  = 73,728+147,456+512+8,192+256 = 230,144; block 2 2*147,456+512 = 295,424;
stage 3 (256): 294,912+589,824+1,024+32,768+512 = 919,040; 2*589,824+1,024 = 1,180,672;
stage 4 (512): 1,179,648+2,359,296+2,048+131,072+1,024 = 3,673,088; 2*2,359,296+2,048 = 4,720,640;
head Dense 512*1000+1000 = 513,000.
Total 9,408+128+147,968+230,144+295,424+919,040+1,180,672+3,673,088+4,720,640+513,000
  = 11,689,512 parameters; batch_stats (mean+var per BN channel) = 9,600.
"""
from functools import partial
from typing import Any, Callable, Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp

ModuleDef = Any


class ResNetBlock(nn.Module):
    filters: int
    conv: ModuleDef
    norm: ModuleDef
    act: Callable
    strides: tuple = (1, 1)

    @nn.compact
    def __call__(self, x):
        residual = x
        y = self.conv(self.filters, (3, 3), self.strides)(x)
        y = self.norm()(y)
        y = self.act(y)
        y = self.conv(self.filters, (3, 3))(y)
        y = self.norm(scale_init=nn.initializers.zeros_init())(y)
        if residual.shape != y.shape:
            residual = self.conv(self.filters, (1, 1), self.strides, name="conv_proj")(residual)
            residual = self.norm(name="norm_proj")(residual)
        return self.act(residual + y)


class ResNet(nn.Module):
    stage_sizes: Sequence[int]
    block_cls: ModuleDef
    num_filters: int = 64
    num_classes: int = 1000
    dtype: Any = jnp.float32
    act: Callable = nn.relu

    @nn.compact
    def __call__(self, x, train: bool = True):
        conv = partial(nn.Conv, use_bias=False, dtype=self.dtype)
        norm = partial(nn.BatchNorm, use_running_average=not train, momentum=0.9, epsilon=1e-5, dtype=self.dtype)
        x = conv(self.num_filters, (7, 7), (2, 2), padding=[(3, 3), (3, 3)], name="conv_init")(x)
        x = norm(name="bn_init")(x)
        x = nn.relu(x)
        x = nn.max_pool(x, (3, 3), strides=(2, 2), padding="SAME")
        for i, block_size in enumerate(self.stage_sizes):
            for j in range(block_size):
                strides = (2, 2) if i > 0 and j == 0 else (1, 1)
                x = self.block_cls(self.num_filters * 2**i, strides=strides, conv=conv, norm=norm, act=self.act)(x)
        x = jnp.mean(x, axis=(1, 2))
        x = nn.Dense(self.num_classes, dtype=self.dtype)(x)
        return jnp.asarray(x, self.dtype)


ResNet18 = partial(ResNet, stage_sizes=[2, 2, 2, 2], block_cls=ResNetBlock)

if __name__ == "__main__":
    model = ResNet18(num_classes=1000, dtype=jnp.bfloat16)
    variables = jax.jit(partial(model.init, train=False))(jax.random.PRNGKey(0), jnp.ones((1, 224, 224, 3), jnp.float32))
    params, batch_stats = variables["params"], variables["batch_stats"]
