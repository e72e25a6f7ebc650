import jax
import jax.numpy as jnp


def make_args(T):
    k1, k2 = jax.random.split(jax.random.PRNGKey(4), 2)
    return jax.random.normal(k1, (6,)), jax.random.normal(k2, (T, 6)), jnp.float32(0.9)
