import jax


def make_args(T):
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(7), 3)
    return jax.random.normal(k1, (5,)), jax.random.normal(k2, (5,)), jax.nn.softplus(jax.random.normal(k3, (5,))), T
