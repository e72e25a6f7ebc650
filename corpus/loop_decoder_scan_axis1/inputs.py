import jax


def make_args(T):
    k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(3), 4)
    return (
        0.4 * jax.random.normal(k1, (3, 5)),
        0.4 * jax.random.normal(k2, (5, 2)),
        jax.random.normal(k3, (T, 4, 3)),
        jax.random.normal(k4, (4, 5)),
    )
