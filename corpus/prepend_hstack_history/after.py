"""Newest-first event log built by prepending with hstack."""

import jax.numpy as jnp


def newest_first(values, scale):
    log = jnp.zeros((0,), jnp.float32)
    log_parts = []
    for v in values:
        log_parts.append(v * scale)
    if log_parts:
        log = jnp.hstack([*log_parts[::-1], log])
    return log
