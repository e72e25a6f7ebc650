import jax


def make_args(T):
    k1, k2 = jax.random.split(jax.random.PRNGKey(T), 2)
    return jax.random.normal(k1, (5, 3)), jax.random.normal(k2, (5, 3)), 1.5
