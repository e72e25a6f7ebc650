import jax
import jax.numpy as jnp


def make_args(T):
    x = jax.random.normal(jax.random.key(0), (T, 4, 8), jnp.float32)
    w = jax.random.normal(jax.random.key(1), (8, 8), jnp.float32) / 3.0
    return x, w
