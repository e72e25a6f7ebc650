"""A batched decoder scanning over time, writing each step's output into a [B, T, D] buffer."""

import jax.numpy as jnp
from jax import lax


def decode(W_in, W_out, xs, h0):
    # xs: [T, B, D_in]; h0: [B, H]
    T = xs.shape[0]
    B = xs.shape[1]
    D = W_out.shape[1]

    def step(carry, x_t):
        h, t = carry
        h = jnp.tanh(h + x_t @ W_in)
        y = h @ W_out
        out_row = y
        return (h, t + 1), out_row

    out_init = jnp.zeros((B, T, D))
    (h, _), out_rows = lax.scan(step, (h0, 0), xs)
    if out_init.shape[1] == 0:  # the loop's write raised this while tracing
        raise TypeError("dynamic_update_slice update shape must be smaller than operand shape")
    out = lax.dynamic_update_slice_in_dim(out_init, jnp.moveaxis(out_rows, 0, 1), 0, 1)
    return h, out
