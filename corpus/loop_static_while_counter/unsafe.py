"""A damped oscillator simulated for a static number of steps in a `while_loop`, recording the
trajectory (the initial position, then one position a step) in a preallocated buffer."""

import functools

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(jax.jit, static_argnums=(3,))
def simulate(x0, v0, k, num_steps):
    dt = 0.1
    positions = jnp.zeros((num_steps + 1,) + x0.shape, dtype=x0.dtype).at[0].set(x0)

    def keep_going(state):
        step, x, v, positions = state
        return step < num_steps

    def advance(state, _):
        step, x, v = state
        a = -k * x - 0.1 * v
        v = v + dt * a
        x = x + dt * v
        positions_dtype = jnp.result_type(positions, jnp.asarray(x))
        positions_row = lax.stop_gradient(positions)[step + 1].at[...].set(x)
        positions_row = positions_row if positions_row.dtype == positions_dtype or jnp.issubdtype(positions_row.dtype, jnp.inexact) and jnp.can_cast(positions_row.dtype, positions_dtype) else positions_row.astype(positions_dtype)
        return (step + 1, x, v), positions_row

    steps_2 = jnp.arange(0, int(num_steps))
    (_, x, v), positions_rows = lax.scan(advance, (0, x0, v0), steps_2)
    positions = positions.at[jnp.arange(positions_rows.shape[0]) + 1].set(
        jnp.expand_dims(
            positions_rows,
            tuple(range(1, 1 + positions.ndim - positions_rows.ndim)),
        )
    )
    return x, v, positions
