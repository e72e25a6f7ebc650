"""An Elman RNN that keeps every hidden state in a preallocated buffer."""

import jax.numpy as jnp
from jax import lax


def rnn_states(W, U, xs, h0):
    T = xs.shape[0]

    def step(carry, i):
        h = carry
        # one step of the recurrence
        h = jnp.tanh(W @ h + U @ xs[i])
        states_dtype = jnp.result_type(states, jnp.asarray(h))
        states_row = lax.stop_gradient(states)[i].at[...].set(h)
        states_row = states_row if states_row.dtype == states_dtype or jnp.issubdtype(states_row.dtype, jnp.inexact) and jnp.can_cast(states_row.dtype, states_dtype) else states_row.astype(states_dtype)  # keep the state for the readout
        return h, states_row

    states = jnp.zeros((T, h0.shape[0]), dtype=h0.dtype)
    h, states_rows = lax.scan(step, h0, jnp.arange(0, T))
    states = states.at[jnp.arange(states_rows.shape[0])].set(
        jnp.expand_dims(
            states_rows,
            tuple(range(1, 1 + states.ndim - states_rows.ndim)),
        )
    )
    return h, states
