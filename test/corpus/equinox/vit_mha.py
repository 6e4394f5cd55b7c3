"""A small Vision Transformer for CIFAR-10 in Equinox: a Conv2d patch
embedding, a learned class token and position table stored as plain
jax.Array fields, and encoder blocks using eqx.nn.MultiheadAttention with
its default (bias-free) projections.

Parameter count (32x32x3 images, patch 4 -> 8*8 = 64 patches, dim 192,
3 heads, 4 blocks, MLP 768, 10 classes):
  patch Conv2d(3, 192, kernel 4, stride 4): 192*3*4*4 = 9,216 + bias 192 = 9,408
  class token (1, 192) = 192; position table (65, 192) = 12,480
  per block: two LayerNorms 2*(192+192) = 768;
    attention q/k/v/o without biases 4*192*192 = 147,456;
    MLP 192*768+768 = 148,224 and 768*192+192 = 147,648;
    block total 768+147,456+148,224+147,648 = 444,096; x4 = 1,776,384
  final LayerNorm 384; head 192*10+10 = 1,930
  total 9,408+192+12,480+1,776,384+384+1,930 = 1,800,778
"""
import equinox as eqx
import jax
import jax.numpy as jnp


class EncoderBlock(eqx.Module):
    norm1: eqx.nn.LayerNorm
    attn: eqx.nn.MultiheadAttention
    norm2: eqx.nn.LayerNorm
    fc1: eqx.nn.Linear
    fc2: eqx.nn.Linear

    def __init__(self, dim, num_heads, mlp_dim, key):
        k1, k2, k3 = jax.random.split(key, 3)
        self.norm1 = eqx.nn.LayerNorm(dim)
        self.attn = eqx.nn.MultiheadAttention(num_heads, dim, key=k1)
        self.norm2 = eqx.nn.LayerNorm(dim)
        self.fc1 = eqx.nn.Linear(dim, mlp_dim, key=k2)
        self.fc2 = eqx.nn.Linear(mlp_dim, dim, key=k3)

    def __call__(self, x):
        h = jax.vmap(self.norm1)(x)
        x = x + self.attn(h, h, h)
        h = jax.vmap(self.norm2)(x)
        return x + jax.vmap(self.fc2)(jax.nn.gelu(jax.vmap(self.fc1)(h)))


class ViT(eqx.Module):
    patch_embed: eqx.nn.Conv2d
    cls_token: jax.Array
    pos_embed: jax.Array
    blocks: list
    norm: eqx.nn.LayerNorm
    head: eqx.nn.Linear

    def __init__(self, image_size=32, patch_size=4, dim=192, depth=4, num_heads=3, mlp_dim=768, num_classes=10, *, key):
        keys = jax.random.split(key, depth + 4)
        num_patches = (image_size // patch_size) ** 2
        self.patch_embed = eqx.nn.Conv2d(3, dim, kernel_size=patch_size, stride=patch_size, key=keys[0])
        self.cls_token = jax.random.normal(keys[1], (1, dim)) * 0.02
        self.pos_embed = jax.random.normal(keys[2], (num_patches + 1, dim)) * 0.02
        self.blocks = [EncoderBlock(dim, num_heads, mlp_dim, k) for k in keys[4:]]
        self.norm = eqx.nn.LayerNorm(dim)
        self.head = eqx.nn.Linear(dim, num_classes, key=keys[3])

    def __call__(self, image):
        x = self.patch_embed(image)
        x = x.reshape(x.shape[0], -1).T
        x = jnp.concatenate([self.cls_token, x], axis=0) + self.pos_embed
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x[0]))


if __name__ == "__main__":
    model = ViT(key=jax.random.PRNGKey(0))
    logits = jax.vmap(model)(jnp.ones((16, 3, 32, 32)))
