"""A jitted RNN written with a Python loop: unrolled at trace time."""

import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(3,))
def rnn_final(W, xs, h, n_steps):
    total = jnp.zeros_like(h)
    steps = range(n_steps)
    def scan_body(carry, unused):
        (h, total), t = carry
        h = jnp.tanh(W @ h + xs[t])
        total = total + h
        return ((h, total), t + steps.step), None
    if steps:  # as the loop, run nothing for no steps (a scan traces its body even then)
        (h, total) = jax.lax.scan(scan_body, ((h, total), steps.start), None, length=len(steps))[0][0]
    return h, total
