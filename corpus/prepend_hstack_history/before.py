"""Newest-first event log built by prepending with hstack."""

import jax.numpy as jnp


def newest_first(values, scale):
    log = jnp.zeros((0,), jnp.float32)
    for v in values:
        log = jnp.hstack([v * scale, log])
    return log
