import jax.numpy as jnp
from jax import lax


def mean_over_past(x):
    """Each step reads the mean of the earlier outputs (AT203: left alone by the transform)."""
    T, F = x.shape

    def body(t, carry):
        h, out = carry
        mask = (jnp.arange(T) < t)[:, None]
        past = jnp.sum(jnp.where(mask, out, 0.0), 0) / jnp.maximum(t, 1)
        h = jnp.tanh(h + x[t] + past)
        return h, out.at[t].set(h)

    return lax.fori_loop(0, T, body, (jnp.zeros(F), jnp.zeros((T, F))))[1]
