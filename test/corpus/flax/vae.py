"""A VAE in the style of flax/examples/vae: Encoder and Decoder submodules
defined with setup(), a reparameterisation rng passed to __call__, and a
factory function that fixes the latent size.

Parameter count (latents = 20, MNIST images flattened to 784):
  encoder fc1 784*500+500 = 392,500; fc2_mean 500*20+20 = 10,020;
  fc2_logvar 10,020; decoder fc1 20*500+500 = 10,500;
  fc2 500*784+784 = 392,784; total 392,500+10,020+10,020+10,500+392,784 = 815,824.
"""
import jax
import jax.numpy as jnp
from flax import linen as nn


class Encoder(nn.Module):
    latents: int

    def setup(self):
        self.fc1 = nn.Dense(500, name="fc1")
        self.fc2_mean = nn.Dense(self.latents, name="fc2_mean")
        self.fc2_logvar = nn.Dense(self.latents, name="fc2_logvar")

    def __call__(self, x):
        x = nn.relu(self.fc1(x))
        return self.fc2_mean(x), self.fc2_logvar(x)


class Decoder(nn.Module):
    @nn.compact
    def __call__(self, z):
        z = nn.Dense(500, name="fc1")(z)
        z = nn.relu(z)
        return nn.Dense(784, name="fc2")(z)


class VAE(nn.Module):
    latents: int = 20

    def setup(self):
        self.encoder = Encoder(self.latents)
        self.decoder = Decoder()

    def __call__(self, x, z_rng):
        mean, logvar = self.encoder(x)
        std = jnp.exp(0.5 * logvar)
        z = mean + std * jax.random.normal(z_rng, logvar.shape)
        return self.decoder(z), mean, logvar

    def generate(self, z):
        return nn.sigmoid(self.decoder(z))


def build_vae(latents):
    return VAE(latents=latents)


if __name__ == "__main__":
    rng = jax.random.PRNGKey(0)
    rng, key, eps_key = jax.random.split(rng, 3)
    init_data = jnp.ones((128, 784), jnp.float32)
    params = build_vae(20).init(key, init_data, eps_key)["params"]
