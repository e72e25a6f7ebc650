import jax
import jax.numpy as jnp


def make_args(T):
    k1, k2 = jax.random.split(jax.random.PRNGKey(7), 2)
    return 0.3 * jax.random.normal(k1, (4, 4)), jax.random.normal(k2, (T, 4)), jnp.ones(4), T
