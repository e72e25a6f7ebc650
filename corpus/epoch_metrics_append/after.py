"""A training loop that appends its per-epoch loss to a flat history array."""

from jax import numpy as J


def train(w, xs, ys, epochs, lr=0.1):
    history = J.array([], dtype=J.float32)
    history_parts = []
    for epoch in range(epochs):
        pred = xs @ w
        loss = J.mean((pred - ys) ** 2)
        grad = 2.0 * xs.T @ (pred - ys) / xs.shape[0]
        w = w - lr * grad
        # jnp.append without axis flattens both arguments
        history_parts.append(J.copy(J.ravel(loss)))
    if history_parts:
        if not J.asarray(history).aval.weak_type and J.result_type(J.asarray(history), *history_parts) == J.asarray(history).dtype:
            history = J.concatenate([J.ravel(history), *history_parts])
        else:  # a piece widens the dtype part-way: grow step by step, as the loop did
            for history_part in history_parts:
                history = J.append(history, history_part)  # noqa: AT101 - only where the dtype widens
    return w, history
