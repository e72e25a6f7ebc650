import jax


def make_args(T):
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(2), 3)
    return jax.random.normal(k1, (7, 6)), 0.5 * jax.random.normal(k2, (6, 6)), jax.random.normal(k3, (6,)), T
