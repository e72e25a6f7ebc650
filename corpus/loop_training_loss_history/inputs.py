import jax
import jax.numpy as jnp


def make_args(T):
    k1, k2 = jax.random.split(jax.random.PRNGKey(1), 2)
    X = jax.random.normal(k1, (12, 3))
    y = jax.random.normal(k2, (12,))
    return jnp.zeros(3), X, y, jnp.full((T,), 0.05)
