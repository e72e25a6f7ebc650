import jax
import jax.numpy as jnp


def make_args(T):
    return jnp.zeros((T + 2, 3)), jax.random.normal(jax.random.PRNGKey(6), (T, 3))
