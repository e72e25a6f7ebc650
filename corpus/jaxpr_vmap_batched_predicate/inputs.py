import jax
import jax.numpy as jnp


def make_args(T):
    n = jnp.arange(3, dtype=jnp.int32) * max(T, 1) // 2
    return n, jax.random.normal(jax.random.key(0), (3, T, 8), jnp.float32)
