import jax


def make_args(T):
    return (jax.random.normal(jax.random.PRNGKey(T), (T, 4, 3)),)
