"""Gradient descent on least squares, recording the loss at every step."""

import jax
import jax.numpy as jnp
from jax import lax


def loss_fn(w, X, y):
    return jnp.mean((X @ w - y) ** 2)


def train(w0, X, y, lrs):
    n_steps = lrs.shape[0]
    history = jnp.zeros(n_steps)

    def update(step, state):
        w, history = state
        loss, grad = jax.value_and_grad(loss_fn)(w, X, y)
        w = w - lrs[step] * grad
        history = history.at[step].set(loss)
        return w, history

    w, history = lax.fori_loop(0, n_steps, update, (w0, history))
    return w, history
