"""A leaky integrator whose trace is stored in bfloat16, one slot after the initial value."""

import jax.numpy as jnp
from jax import lax


def integrate(x0, inputs, decay):
    n = inputs.shape[0]
    trace = jnp.zeros((n + 1, x0.shape[0]), dtype=jnp.bfloat16)
    trace = trace.at[0].set(x0)

    def body(carry, i):
        x = carry
        x = decay * x + inputs[i]
        trace_dtype = jnp.result_type(trace, jnp.asarray(x))
        trace_row = lax.stop_gradient(trace)[i + 1].at[...].set(x)
        trace_row = trace_row if trace_row.dtype == trace_dtype or jnp.issubdtype(trace_row.dtype, jnp.inexact) and jnp.can_cast(trace_row.dtype, trace_dtype) else trace_row.astype(trace_dtype)  # float32 value stored as bfloat16
        return x, trace_row

    x, trace_rows = lax.scan(body, x0, jnp.arange(0, n))
    trace = trace.at[jnp.arange(trace_rows.shape[0]) + 1].set(
        jnp.expand_dims(trace_rows, tuple(range(1, 1 + trace.ndim - trace_rows.ndim)))
    )
    return x, trace
