"""A batched decoder scanning over time, writing each step's output into a [B, T, D] buffer."""

import jax.numpy as jnp
from jax import lax


def decode(W_in, W_out, xs, h0):
    # xs: [T, B, D_in]; h0: [B, H]
    T = xs.shape[0]
    B = xs.shape[1]
    D = W_out.shape[1]

    def step(carry, x_t):
        h, t, out = carry
        h = jnp.tanh(h + x_t @ W_in)
        y = h @ W_out
        out = lax.dynamic_update_slice(out, y[:, None, :], (0, t, 0))
        return (h, t + 1, out), None

    (h, _, out), _ = lax.scan(step, (h0, 0, jnp.zeros((B, T, D))), xs)
    return h, out
