"""A leaky integrator whose trace is stored in bfloat16, one slot after the initial value."""

import jax.numpy as jnp
from jax import lax


def integrate(x0, inputs, decay):
    n = inputs.shape[0]
    trace = jnp.zeros((n + 1, x0.shape[0]), dtype=jnp.bfloat16)
    trace = trace.at[0].set(x0)

    def body(i, carry):
        x, trace = carry
        x = decay * x + inputs[i]
        trace = trace.at[i + 1].set(x)  # float32 value stored as bfloat16
        return x, trace

    x, trace = lax.fori_loop(0, n, body, (x0, trace))
    return x, trace
