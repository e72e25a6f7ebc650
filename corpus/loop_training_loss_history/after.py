"""Gradient descent on least squares, recording the loss at every step."""

import jax
import jax.numpy as jnp
from jax import lax


def loss_fn(w, X, y):
    return jnp.mean((X @ w - y) ** 2)


def train(w0, X, y, lrs):
    n_steps = lrs.shape[0]
    history = jnp.zeros(n_steps)

    def update(state, step):
        w = state
        loss, grad = jax.value_and_grad(loss_fn)(w, X, y)
        w = w - lrs[step] * grad
        history_dtype = jnp.result_type(history, jnp.asarray(loss))
        history_row = lax.stop_gradient(history)[step].at[...].set(loss)
        history_row = history_row if history_row.dtype == history_dtype or jnp.issubdtype(history_row.dtype, jnp.inexact) and jnp.can_cast(history_row.dtype, history_dtype) else history_row.astype(history_dtype)
        return w, history_row

    w, history_rows = lax.scan(update, w0, jnp.arange(0, n_steps))
    history = history.at[jnp.arange(history_rows.shape[0])].set(
        jnp.expand_dims(
            history_rows,
            tuple(range(1, 1 + history.ndim - history_rows.ndim)),
        )
    )
    return w, history
