"""A GRU-like cell under `scan` that also counts steps to fill a state buffer."""

import jax.numpy as jnp
from jax import lax


def gated_rnn(W, xs, h0):
    T = xs.shape[0]

    def cell(carry, x):
        h, t, states = carry
        z = jax_sigmoid(W @ h + x)
        h = z * h + (1 - z) * jnp.tanh(x)
        states = lax.dynamic_update_slice(states, h[None], (t, 0))
        return (h, t + 1, states), None

    init = (h0, 0, jnp.zeros((T, h0.shape[0])))
    (h, _, states), _ = lax.scan(cell, init, xs)
    return h, states


def jax_sigmoid(x):
    return 1 / (1 + jnp.exp(-x))
