"""Newest-first event log built by prepending with hstack."""

import jax.numpy as jnp


def newest_first(values, scale):
    log = jnp.zeros((0,), jnp.float32)
    log_parts = []
    for v in values:
        log_parts.append(jnp.copy(jnp.hstack([v * scale])))
    if log_parts:
        if not jnp.asarray(log).aval.weak_type and jnp.result_type(jnp.asarray(log), *log_parts) == jnp.asarray(log).dtype:
            log = jnp.hstack([*log_parts[::-1], log])
        else:  # a piece widens the dtype part-way: grow step by step, as the loop did
            for log_part in log_parts:
                log = jnp.hstack([log_part, log])  # noqa: AT101 - only where the dtype widens
    return log
