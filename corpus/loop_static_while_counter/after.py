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

    def advance(state):
        step, x, v, positions = state
        a = -k * x - 0.1 * v
        v = v + dt * a
        x = x + dt * v
        positions = positions.at[step + 1].set(x)
        return step + 1, x, v, positions

    _, x, v, positions = lax.while_loop(keep_going, advance, (0, x0, v0, positions))
    return x, v, positions
