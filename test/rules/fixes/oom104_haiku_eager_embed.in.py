# oomlens-test: device=a100-40gb fix=OOM104 unsafe
# A 1,000,000 × 1024 float32 table initialised eagerly: 4.096 GB of parameters.
# hk.Embed's default initializer is TruncatedNormal, whose `s * unscaled + m` keeps
# the sample (4.096 GB) and the product (4.096 GB) alive while the sum (the table)
# is made: peak 3 × 4.096 = 12.288 GB; under jax.jit, 4.096 GB.
import haiku as hk
import jax
import jax.numpy as jnp

model = hk.transform(lambda ids: hk.Embed(vocab_size=1_000_000, embed_dim=1024)(ids))
params = model.init(jax.random.PRNGKey(0), jnp.zeros((1,), jnp.int32))
