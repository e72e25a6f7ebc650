"""An Elman RNN that keeps every hidden state in a preallocated buffer."""

import jax.numpy as jnp
from jax import lax


def rnn_states(W, U, xs, h0):
    T = xs.shape[0]

    def step(i, carry):
        h, states = carry
        # one step of the recurrence
        h = jnp.tanh(W @ h + U @ xs[i])
        states = states.at[i].set(h)  # keep the state for the readout
        return h, states

    states = jnp.zeros((T, h0.shape[0]), dtype=h0.dtype)
    h, states = lax.fori_loop(0, T, step, (h0, states))
    return h, states
