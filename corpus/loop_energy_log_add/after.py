"""A driven leapfrog oscillator that adds each step's energy into a preallocated log."""

import jax.numpy as jnp
from jax import lax


def simulate(x0, v0, k, kicks):
    dt = 0.01
    n_steps = kicks.shape[0]

    def step(state, t):
        x, v = state
        v = v + dt * (kicks[t] - k * x)
        x = x + dt * v
        energies_value = 0.5 * jnp.sum(v**2) + 0.5 * k * jnp.sum(x**2)
        energies_dtype = jnp.result_type(energies, jnp.asarray(energies_value))
        energies_row = energies[t].at[...].add(energies_value)
        energies_row = energies_row if energies_row.dtype == energies_dtype or jnp.issubdtype(energies_row.dtype, jnp.inexact) and jnp.can_cast(energies_row.dtype, energies_dtype) else energies_row.astype(energies_dtype)
        return (x, v), energies_row

    energies = jnp.zeros(n_steps)
    (x, v), energies_rows = lax.scan(step, (x0, v0), jnp.arange(0, n_steps))
    energies = energies.at[jnp.arange(energies_rows.shape[0])].set(
        jnp.expand_dims(
            energies_rows,
            tuple(range(1, 1 + energies.ndim - energies_rows.ndim)),
        )
    )
    return x, v, energies
