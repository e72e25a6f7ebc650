import jax
import jax.numpy as jnp


def make_args(T):
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    W = 0.3 * jax.random.normal(k1, (8, 8))
    U = 0.3 * jax.random.normal(k2, (8, 4))
    xs = jax.random.normal(k3, (T, 4))
    return W, U, xs, jnp.ones(8)
