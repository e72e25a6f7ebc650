"""A first-order IIR filter (exponential smoothing): each output reads back the previous one
from the buffer it is written into."""

import jax.numpy as jnp
from jax import lax


def smooth(xs, alpha):
    T = xs.shape[0]
    ys = jnp.zeros_like(xs).at[0].set(xs[0])

    def step(t, ys_prev):
        ys_row = alpha * xs[t] + (1 - alpha) * ys_prev
        return jnp.broadcast_to(jnp.asarray(ys_row, ys_prev.dtype), ys_prev.shape), ys_row

    _, ys_rows = lax.scan(lambda carry, i: step(i, carry), ys[0], jnp.arange(1, T))
    if ys.shape[0] == 0:  # the loop's `.at[i].set` raised this while tracing
        jnp.result_type(ys, ys_rows)  # as the write, promote first
        raise IndexError("index is out of bounds for axis 0 with size 0")
    ys_rows = ys_rows.astype(ys.dtype) if jnp.issubdtype(ys.dtype, jnp.inexact) and jnp.can_cast(ys.dtype, jnp.result_type(ys, ys_rows)) else ys_rows
    ys = ys.at[jnp.arange(ys_rows.shape[0]) + 1].set(
        jnp.expand_dims(ys_rows, tuple(range(1, 1 + ys.ndim - ys_rows.ndim)))
    )
    return ys
