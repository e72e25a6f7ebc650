"""An Elman RNN run eagerly over a sequence, collecting every hidden state."""

import jax.numpy as jnp


def rnn_states(params, xs, h0):
    w_xh, w_hh, b = params
    h = h0
    # One row per time step: [T, hidden].
    states = jnp.zeros((0, h0.shape[-1]), dtype=h0.dtype)
    states_parts = []
    for t in range(xs.shape[0]):
        h = jnp.tanh(xs[t] @ w_xh + h @ w_hh + b)
        states_parts.append(jnp.copy(jnp.squeeze(h[None, :], ())))  # grow by one row
    if states_parts:
        if not jnp.asarray(states).aval.weak_type and jnp.result_type(jnp.asarray(states), *states_parts) == jnp.asarray(states).dtype:
            states = jnp.concatenate([states, *states_parts], axis=0)
        else:  # a piece widens the dtype part-way: grow step by step, as the loop did
            for states_part in states_parts:
                states = jnp.concatenate([states, states_part], axis=0)  # noqa: AT101 - only where the dtype widens
    return states, h
