"""Each output is the input plus the mean of all previous outputs, read back from the buffer."""

import jax.numpy as jnp
from jax import lax


def running_context(xs):
    T = xs.shape[0]

    def step(t, outs):
        seen = jnp.arange(T)[:, None] < t
        context = jnp.sum(jnp.where(seen, outs, 0.0), axis=0) / jnp.maximum(t, 1)
        outs = outs.at[t].set(jnp.tanh(xs[t] + context))
        return outs

    return lax.fori_loop(0, T, step, jnp.zeros_like(xs))
