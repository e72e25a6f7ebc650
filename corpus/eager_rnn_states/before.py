"""An Elman RNN run eagerly over a sequence, collecting every hidden state."""

import jax.numpy as jnp


def rnn_states(params, xs, h0):
    w_xh, w_hh, b = params
    h = h0
    # One row per time step: [T, hidden].
    states = jnp.zeros((0, h0.shape[-1]), dtype=h0.dtype)
    for t in range(xs.shape[0]):
        h = jnp.tanh(xs[t] @ w_xh + h @ w_hh + b)
        states = jnp.concatenate([states, h[None, :]], axis=0)  # grow by one row
    return states, h
