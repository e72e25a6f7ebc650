"""A replay buffer filled by a jitted step called from a Python loop."""

import jax
import jax.numpy as jnp


@jax.jit(donate_argnums=(0,))
def store(buffer, index, item):
    buffer = buffer.at[index].set(item)
    return buffer


def fill(buffer, items):
    for i in range(items.shape[0]):
        buffer = store(buffer, i, items[i])
    return buffer
