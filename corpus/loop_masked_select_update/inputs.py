import jax


def make_args(T):
    return (jax.random.normal(jax.random.PRNGKey(8), (T, 3)),)
