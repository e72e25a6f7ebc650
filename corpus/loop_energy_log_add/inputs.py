import jax
import jax.numpy as jnp


def make_args(T):
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(3), 3)
    return jax.random.normal(k1, (16,)), jax.random.normal(k2, (16,)), jnp.asarray(2.0), jax.random.normal(k3, (T, 16))
