"""An eager histogram built with .at[].add at bins the data picks: state of a fixed size, whose
size does not grow with the loop, so it is not reported."""

import jax.numpy as jnp


def histogram(samples, bins):
    counts = jnp.zeros(bins, jnp.int32)
    for s in samples:
        b = jnp.clip((s * bins).astype(jnp.int32), 0, bins - 1)
        counts = counts.at[b].add(1)
    return counts
