import jax
import jax.numpy as jnp


def make_args(T):
    return (jax.random.normal(jax.random.key(0), (T, 8), jnp.float32),)
