"""A GRU-like cell under `scan` that also counts steps to fill a state buffer."""

import jax.numpy as jnp
from jax import lax


def gated_rnn(W, xs, h0):
    T = xs.shape[0]

    def cell(carry, x):
        h, t = carry
        z = jax_sigmoid(W @ h + x)
        h = z * h + (1 - z) * jnp.tanh(x)
        states_row = h
        return (h, t + 1), states_row

    states_init = jnp.zeros((T, h0.shape[0]))
    init = (h0, 0)
    (h, _), states_rows = lax.scan(cell, init, xs)
    if states_init.shape[0] == 0:  # the loop's write raised this while tracing
        raise TypeError("dynamic_update_slice update shape must be smaller than operand shape")
    states = lax.dynamic_update_slice_in_dim(states_init, states_rows, 0, 0)
    return h, states


def jax_sigmoid(x):
    return 1 / (1 + jnp.exp(-x))
