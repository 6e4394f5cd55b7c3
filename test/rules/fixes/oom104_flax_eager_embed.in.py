# oomlens-test: device=a100-40gb fix=OOM104 unsafe
# A 1,000,000 × 1024 float32 table initialised eagerly: 4.096 GB of parameters.
# flax Embed's default initializer, variance_scaling(1.0, 'fan_in', 'normal', out_axis=0),
# returns `random.normal(key, shape, dtype) * jnp.sqrt(variance)`: outside jit the
# sample (4.096 GB) is alive while the scaled table (4.096 GB) is made, peak 8.192 GB;
# under jax.jit the two fuse and the peak is the table, 4.096 GB.
import flax.linen as nn
import jax
import jax.numpy as jnp

table = nn.Embed(num_embeddings=1_000_000, features=1024)
params = table.init(jax.random.PRNGKey(0), jnp.zeros((1,), jnp.int32))
